# The main LAPACK calls that ran on the GPU path, summed over the GPUSHIM_SUMMARY=1 tables in the input (a
# suite's output, one table per process): tests/t_pylinalg.sh and the GPU suites group require some.
$1 == "gpushim:" && $2 ~ /(getrf|gesv|gesdd|syevd|heevd|geev|potrf|geqrf)$/ && $4 ~ /^[0-9]+$/ { s += $4 }
END { print s + 0 }
