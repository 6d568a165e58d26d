# R: a linear model by QR, a Cholesky solve of the normal equations and the singular values of the design, as an
# R user writes them.  Writes "NAME VALUE..." lines.  usage: Rscript linalg.R SIZE OUT
args <- commandArgs(trailingOnly = TRUE)
# (lm.fit is LINPACK's dqrdc2, one thread of level-1 BLAS that no library can move: at large = 5000 it alone
# took about 100 s a run, so large is 2500)
n <- c(small = 100, medium = 1000, large = 2500)[[args[1]]]
set.seed(41)
X <- matrix(rnorm(4 * n * n), 4 * n, n) / sqrt(n)
y <- X %*% rep(1, n) + 0.01 * rnorm(4 * n)
fit <- lm.fit(X, y)
XtX <- crossprod(X)
beta <- backsolve(chol(XtX), forwardsolve(t(chol(XtX)), crossprod(X, y)))
d <- svd(X, nu = 0, nv = 0)$d
out <- file(args[2], "w")
writeLines(paste("lm", paste(sprintf("%.17g", fit$coefficients), collapse = " ")), out)
writeLines(paste("chol", paste(sprintf("%.17g", beta), collapse = " ")), out)
writeLines(paste("svd", paste(sprintf("%.17g", d), collapse = " ")), out)
close(out)
