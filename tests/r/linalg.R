# R's linear algebra, which calls LAPACK (eigen: dsyevr and dgeev; solve: dgesv; chol: dpotrf; svd: dgesdd;
# qr(LAPACK = TRUE): dgeqp3), in sign-free forms.  Usage: Rscript linalg.R OUT.rds [REF.rds]: saves the
# results to OUT; with REF, the results of another run (without the shim), compares each with it and exits
# with status 1 when one differs by more than rounding (tests/t_apps_linalg.sh).
args <- commandArgs(trailingOnly = TRUE)
set.seed(7)
n <- 300
a <- matrix(runif(n * n) - 0.5, n)
s <- crossprod(a) + n * diag(n)
b <- matrix(runif(n * 4), n)
e <- eigen(s, symmetric = TRUE)
ev <- eigen(a[1:80, 1:80])
d <- svd(a)
q <- qr(a, LAPACK = TRUE)
res <- list(
  eigen_values = e$values,
  eigen_projector = e$vectors[, 1:20] %*% t(e$vectors[, 1:20]),
  eigen_general = sort(Mod(ev$values)),
  solve = solve(a, b),
  inverse = solve(s),
  chol = chol(s),
  svd_d = d$d,
  svd_rebuilt = d$u %*% diag(d$d) %*% t(d$v),
  qr_rebuilt = qr.Q(q) %*% qr.R(q)[, order(q$pivot)]
)
saveRDS(res, args[1])
if (length(args) > 1) {
  ref <- readRDS(args[2])
  bad <- 0
  for (k in names(res)) {
    same <- isTRUE(all.equal(res[[k]], ref[[k]], tolerance = 1e-9))
    cat(k, if (same) "agrees" else "DIFFERS", "\n")
    bad <- bad + !same
  }
  cat(sprintf("R linalg: %d of %d results differ\n", bad, length(res)))
  quit(status = if (bad) 1 else 0)
}
cat(sprintf("R linalg: %d results\n", length(res)))
