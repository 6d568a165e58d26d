% Octave's FFTs, which call FFTW (complex and real input, one to three dimensions, double and single): each
% result checked against a direct DFT (products with DFT matrices, in double precision) and saved to OUT; with
% REF, the results of another run (without the shim), each also checked against that run's.  Prints a line
% per result; exits with status 1 when one is wrong (tests/t_fftw_apps.sh).
function fftw_octave(out, ref)
  bad = 0;
  calls = 0;
  res = struct();
  for cls = {"double", "single"}
    cls = cls{1};
    z = @(sz, s) cast(wave(sz, s) + 1i * wave(sz, s + 0.5), cls);
    x = @(sz, s) cast(wave(sz, s), cls);
    % Each case: its name, the input, Octave's transform, and the dimensions and sign of the reference.
    cases = {
      "fft column",       z([64 1], 1),      @(a) fft(a),         1,       -1
      "fft columns",      z([48 10], 2),     @(a) fft(a),         1,       -1
      "fft rows",         z([10 48], 3),     @(a) fft(a, [], 2),  2,       -1
      "ifft column",      z([64 1], 4),      @(a) ifft(a),        1,       +1
      "fft2",             z([24 20], 5),     @(a) fft2(a),        [1 2],   -1
      "fftn 3-D",         z([12 10 8], 6),   @(a) fftn(a),        [1 2 3], -1
      "ifftn 3-D",        z([12 10 8], 7),   @(a) ifftn(a),       [1 2 3], +1
      "fft real column",  x([100 1], 8),     @(a) fft(a),         1,       -1
      "fft real columns", x([30 6], 9),      @(a) fft(a),         1,       -1
      "fft2 real",        x([24 20], 10),    @(a) fft2(a),        [1 2],   -1
      "fftn real 3-D",    x([12 10 8], 11),  @(a) fftn(a),        [1 2 3], -1
      "fft column again", z([64 1], 12),     @(a) fft(a),         1,       -1
    };
    for i = 1:rows(cases)
      [name, a, f, dims, sgn] = cases{i, :};
      got = f(a);
      calls++;
      want = dftn(double(a), dims, sgn);
      npts = prod(size(a)(dims));
      tol = 8 * eps(cls) * max(1, log2(npts));
      key = sprintf("%s_%d", cls, i);
      res.(key) = got;
      if !strcmp(class(got), cls)
        printf("BAD %s %s: the result is %s\n", cls, name, class(got));
        bad++;
      end
      bad += report(sprintf("%s %s", cls, name), got, want, tol, "direct DFT");
      if nargin > 1
        r = load(ref);
        bad += report(sprintf("%s %s", cls, name), got, r.res.(key), tol, "the run without the shim");
      end
    end
  end
  save("-binary", out, "res");
  printf("fft calls %d\n", calls);
  printf("octave %s: %s\n", version(), ifelse_str(bad == 0, "all agree", sprintf("%d wrong", bad)));
  exit(bad > 0);
end

% Values from a seed, the same on every run.
function v = wave(sz, s)
  v = reshape(sin(1.3 * (1:prod(sz)) * s + 0.7 * s) + cos(0.37 * (1:prod(sz)) .^ 1.1), sz);
end

% The DFT along each of dims with exponent sign sgn (ifft's is scaled by 1 / n, as Octave's).
function y = dftn(x, dims, sgn)
  y = x;
  for d = dims
    n = size(y, d);
    k = 0:n - 1;
    w = exp(sgn * 2i * pi * mod(k' * k, n) / n);
    if sgn > 0
      w /= n;
    end
    perm = [d, setdiff(1:max(ndims(y), d), d)];
    t = permute(y, perm);
    sz = size(t);
    t = reshape(w * reshape(t, n, []), sz);
    y = ipermute(t, perm);
  end
end

% 0 when got agrees with want (same size and class, largest difference relative to want's largest magnitude
% at most tol), else 1; prints a line either way.
function b = report(name, got, want, tol, what)
  same = isequal(size(got), size(want));
  err = Inf;
  if same
    err = max(abs(double(got(:)) - double(want(:)))) / max(abs(double(want(:))));
  end
  b = !(same && err <= tol && !isreal(got));
  printf("%s %s against %s: error %.2e, tolerance %.2e\n", ifelse_str(b, "BAD", "ok "), name, what, err, tol);
end

function s = ifelse_str(c, a, b)
  if c
    s = a;
  else
    s = b;
  end
end
