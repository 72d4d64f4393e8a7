! The region API from Fortran, for tests/collectors.py: the C names
! (karte_region_begin, ...) and the short ones (karte_begin, ...) alike.
program region_demo
  use karte_region
  implicit none
  integer :: i, ierr
  real :: x
  x = 0.0
  ierr = karte_overhead('halo')
  do i = 1, 3
    ierr = karte_region_begin('stencil')   ! the C names
    call work(x)
    ierr = karte_region_end('stencil')
    ierr = karte_begin('halo')
    call work(x)
    ierr = karte_end('halo')
  end do
  ierr = karte_finish()
  if (x < 0.0) print *, x
contains
  subroutine work(acc)
    real, intent(inout) :: acc
    integer :: k
    do k = 1, 200000
      acc = acc + sqrt(real(k))
    end do
  end subroutine
end program
