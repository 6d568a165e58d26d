% GNU Octave: a least-squares fit, a symmetric eigenproblem and a linear solve, as an Octave user writes them.
% Writes "NAME VALUE..." lines.  usage: octave-cli -q linalg.m SIZE OUT
args = argv();
n = struct("small", 100, "medium", 1000, "large", 6000).(args{1});
rand("seed", 37); randn("seed", 37);
A = randn(2 * n, n) / sqrt(n);
b = A * ones(n, 1) + 0.01 * randn(2 * n, 1);
x = A \ b;
S = A' * A + eye(n);
e = eig(S);
y = S \ ones(n, 1);
f = fopen(args{2}, "w");
fprintf(f, "lsq%s\n", sprintf(" %.17g", x));
fprintf(f, "eig%s\n", sprintf(" %.17g", e));
fprintf(f, "solve%s\n", sprintf(" %.17g", y));
fclose(f);
