% GNU Octave's linear algebra, which calls LAPACK (eig of a symmetric matrix: dsyev; of a general one: dgeevx;
% inv: dgetrf and dgetri; chol: dpotrf; svd: dgesvd; A\b: dgetrf and dgetrs), in sign-free forms.  Saves the
% results to OUT; with REF, the results of another run (without the shim), compares each with it and exits
% with status 1 when one differs by more than rounding (tests/t_apps_linalg.sh).
function linalg_octave(out, ref)
  rand("seed", 7);
  n = 300;
  a = rand(n) - 0.5;
  s = a' * a + n * eye(n);
  b = rand(n, 4);
  [v, l] = eig(s);
  [u, d, w] = svd(a);
  res = struct();
  res.eig_values = diag(l);
  res.eig_projector = v(:, 1:20) * v(:, 1:20)';
  res.eig_general = sort(abs(eig(a(1:80, 1:80))));
  res.inv = inv(a);
  res.chol = chol(s);
  res.svd_d = diag(d);
  res.svd_rebuilt = u * d * w';
  res.solve = a \ b;
  save("-binary", out, "res");
  if (nargin > 1)
    r = load(ref);
    bad = 0;
    names = fieldnames(res);
    for i = 1:numel(names)
      x = res.(names{i});
      y = r.res.(names{i});
      same = isequal(size(x), size(y)) && norm(x(:) - y(:)) <= 1e-9 * max(1, norm(y(:)));
      printf("%s %s\n", names{i}, ifelse_str(same));
      bad += !same;
    end
    printf("Octave linalg: %d of %d results differ\n", bad, numel(names));
    exit(bad > 0);
  end
  printf("Octave linalg: %d results\n", numel(fieldnames(res)));
end

function s = ifelse_str(same)
  if (same)
    s = "agrees";
  else
    s = "DIFFERS";
  end
end
