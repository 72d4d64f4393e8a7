/* An MPI program with regions: rank 1 works twice as long as rank 0. */
#include <mpi.h>
#include <time.h>

#include "karte_region.h"

int main(int argc, char **argv)
{
	int rank, i;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	karte_region_overhead("allreduce");
	for (i = 0; i < 3; i++) {
		struct timespec ts = {0, (rank + 1) * 10 * 1000 * 1000L};
		double x = rank, sum;

		karte_region_begin("compute");
		nanosleep(&ts, NULL);
		karte_region_end("compute");
		karte_region_begin("allreduce");
		MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		karte_region_end("allreduce");
	}
	MPI_Finalize();	/* karte's MPI_Finalize writes the run first */
	return 0;
}
