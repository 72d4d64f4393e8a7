// The C++ standard library's sort of doubles (sort.h): karted's one C++
// file, in the api room only, so that nothing the collectors link is C++.
#include "api/sort.h"

#include <algorithm>

void sort_doubles(double *v, size_t n)
{
	std::sort(v, v + n);
}
