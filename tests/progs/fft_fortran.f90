! FFTW's legacy Fortran interface as Fortran codes call it (dfftw_ and sfftw_, every argument by reference, the
! plan an integer*8 holding FFTW's pointer): 3-D complex transforms both ways, r2c and c2r, each execute kind,
! checked against a direct DFT computed in quadruple precision.  Then one execute of a Fortran-made plan through
! the C name fftw_execute.  Prints a line per result; stops with status 1 when one is wrong (tests/t_fftw_apps.sh).
program fft_fortran
    use, intrinsic :: iso_c_binding, only: c_intptr_t
    implicit none
    include 'fftw3.f'
    interface
        subroutine fftw_execute_c(p) bind(c, name='fftw_execute')
            import :: c_intptr_t
            integer(c_intptr_t), value :: p
        end subroutine
    end interface
    integer, parameter :: qp = selected_real_kind(30), nx = 6, ny = 5, nz = 4, nh = nx / 2 + 1
    complex(8), allocatable :: a(:, :, :), b(:, :, :), c(:, :, :), d(:, :, :), h(:, :, :), h2(:, :, :)
    complex(4), allocatable :: as(:, :, :), bs(:, :, :), hs(:, :, :)
    real(8), allocatable :: r(:, :, :), r2(:, :, :)
    real(4), allocatable :: rs(:, :, :)
    integer*8 :: plan
    integer :: nbad = 0

    allocate (a(nx, ny, nz), b(nx, ny, nz), c(nx, ny, nz), d(nx, ny, nz), h(nh, ny, nz), h2(nh, ny, nz))
    allocate (as(nx, ny, nz), bs(nx, ny, nz), hs(nh, ny, nz), r(nx, ny, nz), r2(nx, ny, nz), rs(nx, ny, nz))

    ! Complex, forward: execute_dft on the plan's arrays, execute after new values, execute_dft on new arrays.
    call dfftw_plan_dft_3d(plan, nx, ny, nz, a, b, FFTW_FORWARD, FFTW_ESTIMATE)
    call fill(a, 1)
    call dfftw_execute_dft(plan, a, b)
    call agree('dfftw_execute_dft forward', b, dft(a, -1), epsilon(1d0))
    call fill(a, 2)
    call dfftw_execute(plan)
    call agree('dfftw_execute forward', b, dft(a, -1), epsilon(1d0))
    call fill(c, 3)
    call dfftw_execute_dft(plan, c, d)
    call agree('dfftw_execute_dft forward, new arrays', d, dft(c, -1), epsilon(1d0))
    ! The same plan through FFTW's C name (the plan's own arrays): the plan is FFTW's pointer.
    call fill(a, 4)
    call fftw_execute_c(int(plan, c_intptr_t))
    call agree('fftw_execute of a dfftw_ plan', b, dft(a, -1), epsilon(1d0))
    call dfftw_destroy_plan(plan)

    ! Complex, backward (unnormalised, as FFTW's).
    call dfftw_plan_dft_3d(plan, nx, ny, nz, a, b, FFTW_BACKWARD, FFTW_ESTIMATE)
    call fill(a, 5)
    call dfftw_execute_dft(plan, a, b)
    call agree('dfftw_execute_dft backward', b, dft(a, 1), epsilon(1d0))
    call dfftw_destroy_plan(plan)

    ! Single precision, forward.
    call sfftw_plan_dft_3d(plan, nx, ny, nz, as, bs, FFTW_FORWARD, FFTW_ESTIMATE)
    call fill(a, 6)
    as = cmplx(a, kind=4)
    call sfftw_execute_dft(plan, as, bs)
    call agree('sfftw_execute_dft forward', cmplx(bs, kind=8), dft(cmplx(as, kind=8), -1), real(epsilon(1.0), 8))
    call sfftw_destroy_plan(plan)

    ! Real to complex: the first nx / 2 + 1 of the full transform's first dimension.
    call dfftw_plan_dft_r2c_3d(plan, nx, ny, nz, r, h, FFTW_ESTIMATE)
    call fill(a, 7)
    r = real(a)
    call dfftw_execute_dft_r2c(plan, r, h)
    c = dft(cmplx(r, 0d0, kind=8), -1)
    call agree('dfftw_execute_dft_r2c', h, c(1:nh, :, :), epsilon(1d0))
    call dfftw_destroy_plan(plan)

    ! Complex to real of that (Hermitian) half: nx ny nz times the real input.  c2r may overwrite its input.
    call dfftw_plan_dft_c2r_3d(plan, nx, ny, nz, h2, r2, FFTW_ESTIMATE)
    h2 = h
    call dfftw_execute_dft_c2r(plan, h2, r2)
    call agree('dfftw_execute_dft_c2r', cmplx(r2, 0d0, kind=8), cmplx(r * (nx * ny * nz), 0d0, kind=8), &
               epsilon(1d0))
    call dfftw_destroy_plan(plan)

    call sfftw_plan_dft_r2c_3d(plan, nx, ny, nz, rs, hs, FFTW_ESTIMATE)
    call fill(a, 8)
    rs = real(a, kind=4)
    call sfftw_execute_dft_r2c(plan, rs, hs)
    c = dft(cmplx(real(rs, 8), 0d0, kind=8), -1)
    call agree('sfftw_execute_dft_r2c', cmplx(hs, kind=8), c(1:nh, :, :), real(epsilon(1.0), 8))
    call sfftw_destroy_plan(plan)

    if (nbad > 0) then
        print '(a, i0, a)', 'fft_fortran: ', nbad, ' wrong'
        stop 1
    end if
    print '(a)', 'fft_fortran: all agree'
    deallocate (a, b, c, d, h, h2, as, bs, hs, r, r2, rs)

contains

    ! Values from a seed, the same on every run: no random generator, whose sequence may change.
    subroutine fill(x, seed)
        complex(8), intent(out) :: x(:, :, :)
        integer, intent(in) :: seed
        integer :: i, j, k
        do k = 1, size(x, 3)
            do j = 1, size(x, 2)
                do i = 1, size(x, 1)
                    x(i, j, k) = cmplx(sin(1.3d0 * i + 0.7d0 * j * seed + 0.11d0 * k), &
                                       cos(0.5d0 * i * seed - 1.9d0 * j + 0.37d0 * k * k), kind=8)
                end do
            end do
        end do
    end subroutine

    ! The 3-D DFT of x with exponent sign s, summed directly in quadruple precision; the twiddles' index is
    ! reduced modulo the size, so that their error does not grow with it.
    function dft(x, s) result(y)
        complex(8), intent(in) :: x(:, :, :)
        integer, intent(in) :: s
        complex(8) :: y(size(x, 1), size(x, 2), size(x, 3))
        complex(qp) :: acc
        real(qp), parameter :: twopi = 2 * acos(-1.0_qp)
        real(qp) :: phase
        integer :: n(3), k1, k2, k3, j1, j2, j3
        n = shape(x)
        do k3 = 0, n(3) - 1
            do k2 = 0, n(2) - 1
                do k1 = 0, n(1) - 1
                    acc = 0
                    do j3 = 0, n(3) - 1
                        do j2 = 0, n(2) - 1
                            do j1 = 0, n(1) - 1
                                phase = s * twopi * (real(mod(j1 * k1, n(1)), qp) / n(1) + &
                                                     real(mod(j2 * k2, n(2)), qp) / n(2) + &
                                                     real(mod(j3 * k3, n(3)), qp) / n(3))
                                acc = acc + x(j1 + 1, j2 + 1, j3 + 1) * cmplx(cos(phase), sin(phase), kind=qp)
                            end do
                        end do
                    end do
                    y(k1 + 1, k2 + 1, k3 + 1) = cmplx(acc, kind=8)
                end do
            end do
        end do
    end function

    ! got against ref: the largest difference relative to ref's largest magnitude is at most 8 eps log2(N),
    ! eps of the transform's precision.
    subroutine agree(name, got, ref, eps)
        character(*), intent(in) :: name
        complex(8), intent(in) :: got(:, :, :), ref(:, :, :)
        real(8), intent(in) :: eps
        real(8) :: err, tol
        tol = 8 * eps * log(real(size(ref), 8)) / log(2d0)
        err = maxval(abs(got - ref)) / maxval(abs(ref))
        if (err <= tol) then
            print '(a, a, a, es9.2, a, es9.2)', 'ok  ', name, ': error ', err, ', tolerance ', tol
        else
            print '(a, a, a, es9.2, a, es9.2)', 'BAD ', name, ': error ', err, ', tolerance ', tol
            nbad = nbad + 1
        end if
    end subroutine
end program
