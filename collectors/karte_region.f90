! karte_region: the region API for Fortran (see karte_region.h), by the C
! names: karte_region_begin, karte_region_end, karte_region_overhead,
! karte_finish (karte_begin, karte_end and karte_overhead stay as before).
!   use karte_region
!   ierr = karte_region_begin('resid') ... ierr = karte_region_end('resid')
module karte_region
  use iso_c_binding
  implicit none
  interface
    integer(c_int) function c_begin(name, len) bind(C, name='karte_region_begin_f')
      import :: c_int, c_char
      character(kind=c_char), dimension(*), intent(in) :: name
      integer(c_int), value :: len
    end function
    integer(c_int) function c_end(name, len) bind(C, name='karte_region_end_f')
      import :: c_int, c_char
      character(kind=c_char), dimension(*), intent(in) :: name
      integer(c_int), value :: len
    end function
    integer(c_int) function c_overhead(name, len) bind(C, name='karte_region_overhead_f')
      import :: c_int, c_char
      character(kind=c_char), dimension(*), intent(in) :: name
      integer(c_int), value :: len
    end function
    integer(c_int) function karte_finish() bind(C, name='karte_finish_f')
      import :: c_int
    end function
  end interface
contains
  integer function karte_region_begin(name)
    character(len=*), intent(in) :: name
    karte_region_begin = c_begin(name, len(name))
  end function
  integer function karte_region_end(name)
    character(len=*), intent(in) :: name
    karte_region_end = c_end(name, len(name))
  end function
  integer function karte_region_overhead(name)
    character(len=*), intent(in) :: name
    karte_region_overhead = c_overhead(name, len(name))
  end function
  integer function karte_begin(name)
    character(len=*), intent(in) :: name
    karte_begin = c_begin(name, len(name))
  end function
  integer function karte_end(name)
    character(len=*), intent(in) :: name
    karte_end = c_end(name, len(name))
  end function
  integer function karte_overhead(name)
    character(len=*), intent(in) :: name
    karte_overhead = c_overhead(name, len(name))
  end function
end module karte_region
