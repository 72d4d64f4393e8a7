/*
 * karte_region: mark the regions of a program and have karte measure them.
 *
 *     karte_region_begin("resid");  ...  karte_region_end("resid");
 *
 * Each region accumulates wall time and, where the powercap tree allows,
 * RAPL energy (package + DRAM). Regions count as computation (gamma) unless
 * karte_region_overhead() marks them as overhead. At karte_finish() (called
 * at exit, or by MPI_Finalize in the MPI build) the run is written as JSON
 * to $KARTE_RESULTS (default karte-run.json), which `karte-collect run`
 * posts, or `karte-collect post` later. With MPI, rank 0 writes: tau and
 * region times are the maximum over ranks, energy the sum over nodes.
 *
 * Threads (OpenMP, pthreads) may open and close regions at once: each
 * thread keeps its own figures (made at its first region), merged per run:
 * a region's time is the longest any thread spent in it, its calls the sum,
 * its energy what the thread that started the clock measured (RAPL counts
 * the package, not a thread). After a thread's first call for a name,
 * begin/end take no lock and allocate nothing. Call karte_finish() when the
 * threads' regions are closed (at exit, or after the parallel part).
 * Fortran: module karte_region (karte_region.f90).
 */
#ifndef KARTE_REGION_H
#define KARTE_REGION_H

#ifdef __cplusplus
extern "C" {
#endif

#define KARTE_REGIONS_MAX 256	/* call paths (a name under each parent it was opened in) */
#define KARTE_REGION_NAME_MAX 63
#define KARTE_REGION_DEPTH_MAX 32	/* regions one thread has open at once */

/* Start / stop a region. A region opened while another is open in the same
 * thread is its child: the run lists it with its call path ("path":
 * ["solve", "MPI_Allreduce"]), and the same name under another parent is
 * another region. A region already open is not re-entered; ending one
 * closes it even when regions opened inside it are still open (they keep
 * their path). 0, or -1 for a bad name, a full table or KARTE_REGION_DEPTH_MAX
 * open at once. */
int karte_region_begin(const char *name);
int karte_region_end(const char *name);

/* Count the region as overhead (chi), not computation (gamma), wherever it
 * is opened. gamma is the time in computation regions less the overhead
 * regions opened inside them: each moment counted once. */
int karte_region_overhead(const char *name);

/* Start the clock (done by the first begin when not called). */
void karte_init(void);

/* Stop the clock and write the run; later calls do nothing. 0 or -1. */
int karte_finish(void);

/* Marker macros that vanish unless KARTE_REGIONS is defined (-DKARTE_REGIONS),
 * as LIKWID's do: a code keeps them in and builds without karte when asked.
 *     KARTE_REGION_BEGIN("resid"); ... KARTE_REGION_END("resid"); */
#ifdef KARTE_REGIONS
#define KARTE_REGION_BEGIN(name) karte_region_begin(name)
#define KARTE_REGION_END(name) karte_region_end(name)
#define KARTE_REGION_OVERHEAD(name) karte_region_overhead(name)
#define KARTE_FINISH() karte_finish()
#else
#define KARTE_REGION_BEGIN(name) ((void)0)
#define KARTE_REGION_END(name) ((void)0)
#define KARTE_REGION_OVERHEAD(name) ((void)0)
#define KARTE_FINISH() ((void)0)
#endif

/* Fortran entry points (name, length): see karte_region.f90. */
int karte_region_begin_f(const char *name, int len);
int karte_region_end_f(const char *name, int len);
int karte_region_overhead_f(const char *name, int len);
int karte_finish_f(void);

#ifdef __cplusplus
}
#endif

#endif
