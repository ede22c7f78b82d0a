/* SPDX-License-Identifier: GPL-2.0-or-later */
/* recorder.c: the PMPI recorder, preloaded into the ranks of a step to
 * record its communication profile (profile.h).  See RECORDER in
 * topomap(1), and CloudMap §II-B (doc/references.md).
 *
 * Active only when TOPOMAP_RECORD names the file to write; otherwise every
 * wrapper is a test of one flag and a tail call into PMPI.
 *
 * What is counted, at the sender, in world ranks:
 *   - point-to-point sends: blocking (MPI_Send, Bsend, Ssend, Rsend),
 *     non-blocking (Isend, Ibsend, Issend, Irsend), persistent (Send_init,
 *     Bsend_init, Ssend_init, Rsend_init: counted at every MPI_Start or
 *     MPI_Startall), the send half of Sendrecv and Sendrecv_replace, and
 *     the MPI-4 large-count (_c) forms where the MPI has them;
 *   - with TOPOMAP_RECORD_COLLECTIVES=1, collectives after the model below.
 * Ranks of any communicator, intercommunicators included, are translated to
 * world ranks through a table cached on the communicator as an attribute.
 *
 * Collective model (each rank counts only what it sends in it; p ranks):
 *   Bcast            root -> every other rank, the buffer
 *   Scatter(v)       root -> every other rank, its piece
 *   Gather(v)        every non-root rank -> root, its piece
 *   Reduce           every non-root rank -> root, the buffer
 *   Allreduce        recursive doubling: rank r -> r xor 2^k for each k
 *                    with 2^k < p and partner < p, the buffer
 *   Allgather(v)     ring: rank r -> r+1 mod p, its piece p-1 times
 *   Alltoall(v)      rank r -> every other rank j, the piece for j
 *   Barrier and the rest: nothing.
 *
 * Counters: a table of pages of REC_PAGE peers, a page allocated the first
 * time a peer in it is sent to (warm-up): O(1) per message, no allocation
 * afterwards.  A persistent send is found at each start in a hash table
 * keyed by its request: O(1) too.  The size of a datatype comes from a
 * small cache of the predefined ones (MPI_COMBINER_NAMED: never freed, so
 * their handles always mean the same type); a derived type's entry says
 * so, and its size is asked of the MPI at every send, as a freed handle may
 * come back as another type.  (PMPI_Type_size was 3 ns of the 4-5 ns the
 * recorder added to an 8-byte Isend on shared memory, Open MPI 4.1.)
 * Under MPI_THREAD_MULTIPLE the counters are updated with atomic adds,
 * pages installed by compare-and-swap, the persistent table locked and the
 * datatype cache left out; below it, with plain adds and no lock, and a
 * send to a world rank with a cached datatype is counted in the wrapper
 * itself, between a test of the flag and the tail call into PMPI
 * (rec_send_fast).  At MPI_Finalize the nonzero entries of every rank are
 * gathered to rank 0, which writes the profile (temp file + rename).  A
 * job that dies before MPI_Finalize writes nothing.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "lib/exeid.h"
#include "lib/profile.h"
#include "lib/recorder.h"

#define REC_PAGE  256
#define REC_TYPES 16 /* entries of the datatype size cache */

typedef struct {
    _Atomic uint64_t msgs;
    _Atomic uint64_t bytes;
} rec_cell_t;

/* World ranks of the ranks of one communicator (its remote group for an
 * intercommunicator), cached on it as the attribute rec_keyval.
 */
typedef struct {
    int n;
    int world[];
} rec_xlate_t;

/* A datatype's size; size -1: a derived type, to be asked each time. */
typedef struct {
    MPI_Datatype type;
    int size;
} rec_type_t;

/* What a persistent send will send at each start; dst -1: a free slot. */
typedef struct {
    MPI_Request req;
    int dst; /* world rank */
    uint64_t bytes;
} rec_persist_t;

static struct {
    int on;           /* recording */
    int collectives;  /* attribute collectives to pairs */
    int threads;      /* MPI_THREAD_MULTIPLE: atomic adds */
    const char *path; /* TOPOMAP_RECORD */
    int size, rank;   /* in MPI_COMM_WORLD */
    int npages;
    rec_cell_t *_Atomic *pages; /* [npages] */
    int keyval;
    MPI_Comm comm;               /* a duplicate of the world, for the gather */
    pthread_mutex_t lock;        /* xlate tables; the persistent table
                                    under MPI_THREAD_MULTIPLE */
    rec_persist_t *persist;      /* open addressing, linear probing */
    size_t npersist, maxpersist; /* maxpersist: 0 or a power of 2 */
    rec_type_t types[REC_TYPES]; /* direct-mapped by handle; !threads */
    double t0;
} rec = {
    .keyval = MPI_KEYVAL_INVALID,
    .comm = MPI_COMM_NULL,
    .lock = PTHREAD_MUTEX_INITIALIZER,
};

static void rec_warn (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));

static void rec_warn (const char *fmt, ...)
{
    char buf[512];
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (buf, sizeof (buf), fmt, ap);
    va_end (ap);
    fprintf (stderr, "topomap-recorder: rank %d: %s\n", rec.rank, buf);
}

/* Counting */

/* The first message to a page of peers: allocate it (warm-up). */
static __attribute__ ((noinline, cold)) rec_cell_t *rec_page_new (int pg)
{
    rec_cell_t *fresh = calloc (REC_PAGE, sizeof (*fresh)), *expected = NULL;

    if (!fresh)
        return NULL;
    if (atomic_compare_exchange_strong (&rec.pages[pg], &expected, fresh))
        return fresh;
    free (fresh);
    return expected;
}

/* One thread calls MPI: plain adds, no locked instruction. */
static inline void rec_cell_add (rec_cell_t *c, uint64_t msgs, uint64_t bytes)
{
    atomic_store_explicit (&c->msgs, atomic_load_explicit (&c->msgs, memory_order_relaxed) + msgs,
                           memory_order_relaxed);
    atomic_store_explicit (&c->bytes,
                           atomic_load_explicit (&c->bytes, memory_order_relaxed) + bytes,
                           memory_order_relaxed);
}

static inline void rec_count (int dst, uint64_t msgs, uint64_t bytes)
{
    unsigned u = (unsigned)dst;
    rec_cell_t *page, *c;

    if (u >= (unsigned)rec.size)
        return;
    page = atomic_load_explicit (&rec.pages[u / REC_PAGE], memory_order_acquire);
    if (!page && !(page = rec_page_new ((int)(u / REC_PAGE))))
        return;
    c = &page[u % REC_PAGE];
    if (rec.threads) {
        atomic_fetch_add_explicit (&c->msgs, msgs, memory_order_relaxed);
        atomic_fetch_add_explicit (&c->bytes, bytes, memory_order_relaxed);
    } else
        rec_cell_add (c, msgs, bytes);
}

static inline rec_type_t *rec_type_entry (MPI_Datatype type)
{
    /* Fibonacci hashing of the handle, a pointer (Open MPI) or an int
     * (MPICH): both have their low bits alike.
     */
    return &rec.types[((uint64_t)(uintptr_t)type * UINT64_C (0x9E3779B97F4A7C15)) >> 60];
}

/* A send with a datatype the cache does not have: its size, and an entry
 * saying whether it is predefined.
 */
static __attribute__ ((noinline, cold)) int rec_type_learn (MPI_Datatype type)
{
    int size, ni, na, nd, combiner;

    if (PMPI_Type_size (type, &size) != MPI_SUCCESS || size <= 0)
        return 0;
    if (!rec.threads && PMPI_Type_get_envelope (type, &ni, &na, &nd, &combiner) == MPI_SUCCESS) {
        rec_type_t *e = rec_type_entry (type);
        e->type = type;
        e->size = combiner == MPI_COMBINER_NAMED ? size : -1;
    }
    return size;
}

static inline uint64_t rec_bytes (MPI_Count count, MPI_Datatype type)
{
    const rec_type_t *e = rec_type_entry (type);
    int size;

    if (count <= 0)
        return 0;
    if (rec.threads || e->type != type)
        size = rec_type_learn (type);
    else if (e->size >= 0)
        size = e->size;
    else if (PMPI_Type_size (type, &size) != MPI_SUCCESS || size <= 0)
        return 0;
    return (uint64_t)count * (uint64_t)size;
}

/* Rank translation */

static int rec_xlate_free (MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    free (value);
    return MPI_SUCCESS;
}

static rec_xlate_t *rec_xlate_build (MPI_Comm comm)
{
    MPI_Group group = MPI_GROUP_NULL, world = MPI_GROUP_NULL;
    rec_xlate_t *x = NULL;
    int *ranks = NULL;
    int inter = 0, n = 0;

    if (PMPI_Comm_test_inter (comm, &inter) != MPI_SUCCESS ||
        (inter ? PMPI_Comm_remote_group (comm, &group) : PMPI_Comm_group (comm, &group)) !=
            MPI_SUCCESS ||
        PMPI_Comm_group (MPI_COMM_WORLD, &world) != MPI_SUCCESS ||
        PMPI_Group_size (group, &n) != MPI_SUCCESS || n < 0)
        goto out;
    if (!(x = malloc (sizeof (*x) + (size_t)n * sizeof (int))) ||
        !(ranks = malloc ((size_t)(n ? n : 1) * sizeof (int)))) {
        free (x);
        x = NULL;
        goto out;
    }
    x->n = n;
    for (int i = 0; i < n; i++)
        ranks[i] = i;
    if (PMPI_Group_translate_ranks (group, n, ranks, world, x->world) != MPI_SUCCESS) {
        free (x);
        x = NULL;
    }
out:
    free (ranks);
    if (group != MPI_GROUP_NULL)
        PMPI_Group_free (&group);
    if (world != MPI_GROUP_NULL)
        PMPI_Group_free (&world);
    return x;
}

/* World rank of rank r of comm (of its remote group for an
 * intercommunicator), -1 for MPI_PROC_NULL or when unknown.
 */
static int rec_world_xlate (MPI_Comm comm, int r)
{
    rec_xlate_t *x = NULL;
    int found = 0;

    if (PMPI_Comm_get_attr (comm, rec.keyval, &x, &found) != MPI_SUCCESS)
        return -1;
    if (!found) {
        /* Built under the lock: setting the attribute twice would free a
         * table another thread is reading.
         */
        pthread_mutex_lock (&rec.lock);
        if (PMPI_Comm_get_attr (comm, rec.keyval, &x, &found) == MPI_SUCCESS && !found &&
            (x = rec_xlate_build (comm)) &&
            PMPI_Comm_set_attr (comm, rec.keyval, x) != MPI_SUCCESS) {
            free (x);
            x = NULL;
        }
        pthread_mutex_unlock (&rec.lock);
        if (!x)
            return -1;
    }
    return r < x->n ? x->world[r] : -1;
}

static inline int rec_world (MPI_Comm comm, int r)
{
    if (r < 0)
        return -1;
    return comm == MPI_COMM_WORLD ? r : rec_world_xlate (comm, r);
}

static void rec_send (MPI_Comm comm, int dest, MPI_Count count, MPI_Datatype type)
{
    rec_count (rec_world (comm, dest), 1, rec_bytes (count, type));
}

/* A send counted in a few instructions, when it is the common case: one
 * thread, the world, a predefined datatype seen before, a page already
 * there; called only while recording.  False: count it with rec_send.  The wrappers call rec_send
 * in a function of their own, so that both ways end in a tail call into PMPI and the wrapper saves
 * no register.
 */
static inline __attribute__ ((always_inline)) int rec_send_fast (MPI_Comm comm, int dest,
                                                                 MPI_Count count, MPI_Datatype type)
{
    const rec_type_t *e = rec_type_entry (type);
    unsigned u = (unsigned)dest;
    rec_cell_t *page, *c;

    if (rec.threads || comm != MPI_COMM_WORLD || u >= (unsigned)rec.size || e->type != type ||
        e->size < 0 || count < 0)
        return 0;
    if (!(page = atomic_load_explicit (&rec.pages[u / REC_PAGE], memory_order_relaxed)))
        return 0;
    c = &page[u % REC_PAGE];
    rec_cell_add (c, 1, (uint64_t)count * (uint64_t)e->size);
    return 1;
}

/* Persistent sends */

static inline void rec_persist_lock (void)
{
    if (rec.threads)
        pthread_mutex_lock (&rec.lock);
}

static inline void rec_persist_unlock (void)
{
    if (rec.threads)
        pthread_mutex_unlock (&rec.lock);
}

/* The home slot of a request handle (a pointer or an integer, by MPI). */
static inline size_t rec_persist_home (MPI_Request req)
{
    uint64_t k = 0;

    memcpy (&k, &req, sizeof (req) < sizeof (k) ? sizeof (req) : sizeof (k));
    return (size_t)((k * UINT64_C (0x9E3779B97F4A7C15)) >> 32) & (rec.maxpersist - 1);
}

/* The slot of req, or of the free slot where it would go.  The table is
 * never full (at most half used).
 */
static inline size_t rec_persist_slot (MPI_Request req)
{
    size_t i = rec_persist_home (req);

    while (rec.persist[i].dst >= 0 && rec.persist[i].req != req)
        i = (i + 1) & (rec.maxpersist - 1);
    return i;
}

/* Double the table (or make its first 64 slots); -1 when out of memory. */
static int rec_persist_grow (void)
{
    size_t old = rec.maxpersist, max = old ? 2 * old : 64;
    rec_persist_t *prev = rec.persist, *p = malloc (max * sizeof (*p));

    if (!p)
        return -1;
    for (size_t i = 0; i < max; i++)
        p[i].dst = -1;
    rec.persist = p;
    rec.maxpersist = max;
    for (size_t i = 0; i < old; i++)
        if (prev[i].dst >= 0)
            rec.persist[rec_persist_slot (prev[i].req)] = prev[i];
    free (prev);
    return 0;
}

static void rec_persist_add (MPI_Request req, MPI_Comm comm, int dest, MPI_Count count,
                             MPI_Datatype type)
{
    int dst = rec_world (comm, dest);

    if (dst < 0)
        return;
    rec_persist_lock ();
    if (2 * (rec.npersist + 1) > rec.maxpersist && rec_persist_grow () < 0) {
        rec_persist_unlock ();
        rec_warn ("out of memory: a persistent send goes uncounted");
        return;
    }
    {
        size_t i = rec_persist_slot (req);

        if (rec.persist[i].dst < 0)
            rec.npersist++;
        rec.persist[i] = (rec_persist_t){req, dst, rec_bytes (count, type)};
    }
    rec_persist_unlock ();
}

/* Count a start of req if it is a persistent send: O(1). */
static inline void rec_persist_start (MPI_Request req)
{
    rec_persist_lock ();
    if (rec.npersist > 0) {
        size_t i = rec_persist_slot (req);

        if (rec.persist[i].dst >= 0)
            rec_count (rec.persist[i].dst, 1, rec.persist[i].bytes);
    }
    rec_persist_unlock ();
}

/* Forget req if it is a persistent send (MPI_Request_free): the entries
 * after it in its run move back (deletion in linear probing).
 */
static void rec_persist_drop (MPI_Request req)
{
    size_t i, j, mask;

    rec_persist_lock ();
    if (rec.npersist == 0 || rec.persist[i = rec_persist_slot (req)].dst < 0) {
        rec_persist_unlock ();
        return;
    }
    mask = rec.maxpersist - 1; /* under the lock: another thread may grow the table */
    rec.persist[i].dst = -1;
    rec.npersist--;
    for (j = (i + 1) & mask; rec.persist[j].dst >= 0; j = (j + 1) & mask) {
        size_t h = rec_persist_home (rec.persist[j].req);

        /* Move j back into the hole at i unless its home lies in (i, j]. */
        if (i <= j ? (h <= i || h > j) : (h <= i && h > j)) {
            rec.persist[i] = rec.persist[j];
            rec.persist[j].dst = -1;
            i = j;
        }
    }
    rec_persist_unlock ();
}

/* Collectives */

static int rec_comm_geometry (MPI_Comm comm, int *rank, int *size)
{
    int inter = 0;

    return PMPI_Comm_test_inter (comm, &inter) == MPI_SUCCESS && !inter &&
           PMPI_Comm_rank (comm, rank) == MPI_SUCCESS && PMPI_Comm_size (comm, size) == MPI_SUCCESS;
}

static void rec_to_all (MPI_Comm comm, int me, int p, const int *counts, MPI_Count count,
                        MPI_Datatype type)
{
    for (int j = 0; j < p; j++)
        if (j != me)
            rec_send (comm, j, counts ? counts[j] : count, type);
}

static void rec_coll_root (MPI_Comm comm, int root, const int *counts, MPI_Count count,
                           MPI_Datatype type, int from_root)
{
    int me, p;

    if (!rec_comm_geometry (comm, &me, &p))
        return;
    if (from_root && me == root)
        rec_to_all (comm, me, p, counts, count, type);
    else if (!from_root && me != root)
        rec_send (comm, root, count, type);
}

static void rec_coll_allreduce (MPI_Comm comm, MPI_Count count, MPI_Datatype type)
{
    int me, p;

    if (!rec_comm_geometry (comm, &me, &p))
        return;
    for (int k = 1; k < p; k <<= 1)
        if ((me ^ k) < p)
            rec_send (comm, me ^ k, count, type);
}

static void rec_coll_allgather (MPI_Comm comm, MPI_Count count, MPI_Datatype type)
{
    int me, p;

    if (!rec_comm_geometry (comm, &me, &p) || p < 2)
        return;
    for (int k = 0; k < p - 1; k++)
        rec_send (comm, (me + 1) % p, count, type);
}

static void rec_coll_alltoall (MPI_Comm comm, const int *counts, MPI_Count count, MPI_Datatype type)
{
    int me, p;

    if (rec_comm_geometry (comm, &me, &p))
        rec_to_all (comm, me, p, counts, count, type);
}

#define REC_COLL(stmt)                                                                             \
    do {                                                                                           \
        if (rec.on && rec.collectives)                                                             \
            stmt;                                                                                  \
    } while (0)

/* Start and finish */

static void rec_start (int provided)
{
    const char *path = getenv (RECORDER_ENV);
    const char *coll = getenv (RECORDER_ENV_COLLECTIVES);

    if (!path || path[0] == '\0')
        return;
    if (PMPI_Comm_size (MPI_COMM_WORLD, &rec.size) != MPI_SUCCESS ||
        PMPI_Comm_rank (MPI_COMM_WORLD, &rec.rank) != MPI_SUCCESS)
        return;
    rec.npages = (rec.size + REC_PAGE - 1) / REC_PAGE;
    if (!(rec.pages = calloc ((size_t)rec.npages, sizeof (*rec.pages)))) {
        rec_warn ("out of memory: not recording");
        return;
    }
    if (PMPI_Comm_create_keyval (MPI_COMM_NULL_COPY_FN, rec_xlate_free, &rec.keyval, NULL) !=
        MPI_SUCCESS) {
        rec_warn ("cannot create a communicator attribute: not recording");
        return;
    }
    if (PMPI_Comm_dup (MPI_COMM_WORLD, &rec.comm) != MPI_SUCCESS) {
        rec_warn ("cannot duplicate MPI_COMM_WORLD: not recording");
        return;
    }
    rec.path = path;
    rec.collectives = coll && !strcmp (coll, "1");
    rec.threads = provided == MPI_THREAD_MULTIPLE;
    for (int k = 0; k < REC_TYPES; k++)
        rec.types[k].type = MPI_DATATYPE_NULL;
    rec.t0 = PMPI_Wtime ();
    rec.on = 1;
}

/* This rank's nonzero counters as (dst, msgs, bytes) triplets. */
static uint64_t *rec_rows (int *nout)
{
    uint64_t *v;
    int n = 0;

    if (!(v = malloc ((size_t)rec.size * 3 * sizeof (*v))))
        return NULL;
    for (int pg = 0; pg < rec.npages; pg++) {
        rec_cell_t *page = atomic_load (&rec.pages[pg]);

        for (int i = 0; page && i < REC_PAGE; i++) {
            uint64_t m = atomic_load (&page[i].msgs);

            if (m) {
                v[3 * n] = (uint64_t)(pg * REC_PAGE + i);
                v[3 * n + 1] = m;
                v[3 * n + 2] = atomic_load (&page[i].bytes);
                n++;
            }
        }
    }
    *nout = n;
    return v;
}

static void rec_write (const uint64_t *all, const int *counts, double record_s)
{
    profile_entry_t *t = NULL;
    profile_t *p = NULL;
    size_t n = 0, k = 0;
    char exe[4096], id[160], lib[MPI_MAX_LIBRARY_VERSION_STRING];
    const char *job = getenv ("SLURM_JOB_ID");
    int liblen = 0;
    ssize_t len;
    tm_error_t e;

    for (int r = 0; r < rec.size; r++)
        n += (size_t)counts[r] / 3;
    if (!(t = malloc ((n ? n : 1) * sizeof (*t)))) {
        rec_warn ("%s: out of memory", rec.path);
        return;
    }
    for (int r = 0; r < rec.size; r++)
        for (int i = 0; i < counts[r] / 3; i++, k++)
            t[k] = (profile_entry_t){r, (int)all[3 * k], all[3 * k + 1], all[3 * k + 2]};
    if (!(p = profile_create (rec.size, n, t, &e)))
        goto fail;
    if ((len = readlink ("/proc/self/exe", exe, sizeof (exe) - 1)) > 0) {
        exe[len] = '\0';
        if (profile_set_string (&p->exe_path, exe, &e) < 0)
            goto fail;
        if (exeid_compute (exe, id, sizeof (id), &e) < 0) {
            rec_warn ("%s", e.text);
        } else if (profile_set_string (&p->exe_id, id, &e) < 0)
            goto fail;
    }
    if (PMPI_Get_library_version (lib, &liblen) == MPI_SUCCESS) {
        /* The first line, blanks squeezed: "Open MPI v4.1.4", "MPICH Version: 4.0.2". */
        size_t j = 0;

        lib[strcspn (lib, "\n,")] = '\0';
        for (size_t i = 0; lib[i]; i++)
            if (!isspace ((unsigned char)lib[i]) || (j > 0 && lib[j - 1] != ' '))
                lib[j++] = isspace ((unsigned char)lib[i]) ? ' ' : lib[i];
        lib[j] = '\0';
        if (profile_set_string (&p->mpi, lib, &e) < 0)
            goto fail;
    }
    if (profile_set_string (&p->source, "recorder", &e) < 0)
        goto fail;
    p->collectives = rec.collectives;
    p->record_s = record_s;
    if (job && strlen (job) < sizeof (p->jobid))
        strcpy (p->jobid, job);
    if (profile_write (p, rec.path, 0600, &e) < 0)
        goto fail;
    profile_destroy (p);
    free (t);
    return;
fail:
    rec_warn ("%s", e.text);
    profile_destroy (p);
    free (t);
}

static void rec_finish (void)
{
    uint64_t *mine = NULL, *all = NULL;
    int *counts = NULL, *displs = NULL;
    int n = 0, ok = 1, allok = 0;
    double record_s = PMPI_Wtime () - rec.t0;

    rec.on = 0;
    if (!(mine = rec_rows (&n))) {
        rec_warn ("out of memory: the profile is not written");
        ok = 0;
        n = 0;
    }
    if (rec.rank == 0 && (!(counts = calloc ((size_t)rec.size, sizeof (int))) ||
                          !(displs = calloc ((size_t)rec.size, sizeof (int)))))
        ok = 0;
    /* Every rank learns whether all can go on, so none waits in a gather
     * that another skipped.
     */
    if (PMPI_Allreduce (&ok, &allok, 1, MPI_INT, MPI_LAND, rec.comm) != MPI_SUCCESS || !allok)
        goto out;
    n *= 3;
    if (PMPI_Gather (&n, 1, MPI_INT, counts, 1, MPI_INT, 0, rec.comm) != MPI_SUCCESS)
        goto out;
    if (rec.rank == 0) {
        size_t total = 0;

        for (int r = 0; r < rec.size; r++) {
            displs[r] = (int)total;
            total += (size_t)counts[r];
        }
        if (total > INT32_MAX) {
            rec_warn ("%s: %zu entries, too many to gather", rec.path, total / 3);
            total = 0;
        }
        if (!(all = malloc ((total ? total : 1) * sizeof (*all)))) {
            rec_warn ("%s: out of memory", rec.path);
            memset (counts, 0, (size_t)rec.size * sizeof (int));
        }
    }
    if (PMPI_Gatherv (mine, n, MPI_UINT64_T, all, counts, displs, MPI_UINT64_T, 0, rec.comm) !=
        MPI_SUCCESS)
        goto out;
    if (rec.rank == 0 && all)
        rec_write (all, counts, record_s);
out:
    PMPI_Comm_free (&rec.comm);
    free (mine);
    free (all);
    free (counts);
    free (displs);
}

/* The MPI interface */

int MPI_Init (int *argc, char ***argv)
{
    int rc = PMPI_Init (argc, argv), provided = MPI_THREAD_MULTIPLE;

    if (rc == MPI_SUCCESS && PMPI_Query_thread (&provided) == MPI_SUCCESS)
        rec_start (provided);
    return rc;
}

int MPI_Init_thread (int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread (argc, argv, required, provided);

    if (rc == MPI_SUCCESS)
        rec_start (*provided);
    return rc;
}

int MPI_Finalize (void)
{
    if (rec.on)
        rec_finish ();
    return PMPI_Finalize ();
}

#define REC_SEND(name, ctype)                                                                      \
    static __attribute__ ((noinline)) int rec_##name (                                             \
        const void *buf, ctype count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)         \
    {                                                                                              \
        rec_send (comm, dest, count, type);                                                        \
        return PMPI_##name (buf, count, type, dest, tag, comm);                                    \
    }                                                                                              \
    int MPI_##name (const void *buf, ctype count, MPI_Datatype type, int dest, int tag,            \
                    MPI_Comm comm)                                                                 \
    {                                                                                              \
        if (rec.on && !rec_send_fast (comm, dest, count, type))                                    \
            return rec_##name (buf, count, type, dest, tag, comm);                                 \
        return PMPI_##name (buf, count, type, dest, tag, comm);                                    \
    }

#define REC_ISEND(name, ctype)                                                                     \
    static __attribute__ ((noinline)) int rec_##name (const void *buf, ctype count,                \
                                                      MPI_Datatype type, int dest, int tag,        \
                                                      MPI_Comm comm, MPI_Request *req)             \
    {                                                                                              \
        rec_send (comm, dest, count, type);                                                        \
        return PMPI_##name (buf, count, type, dest, tag, comm, req);                               \
    }                                                                                              \
    int MPI_##name (const void *buf, ctype count, MPI_Datatype type, int dest, int tag,            \
                    MPI_Comm comm, MPI_Request *req)                                               \
    {                                                                                              \
        if (rec.on && !rec_send_fast (comm, dest, count, type))                                    \
            return rec_##name (buf, count, type, dest, tag, comm, req);                            \
        return PMPI_##name (buf, count, type, dest, tag, comm, req);                               \
    }

#define REC_SEND_INIT(name, ctype)                                                                 \
    int MPI_##name (const void *buf, ctype count, MPI_Datatype type, int dest, int tag,            \
                    MPI_Comm comm, MPI_Request *req)                                               \
    {                                                                                              \
        int rc = PMPI_##name (buf, count, type, dest, tag, comm, req);                             \
        if (rec.on && rc == MPI_SUCCESS)                                                           \
            rec_persist_add (*req, comm, dest, count, type);                                       \
        return rc;                                                                                 \
    }

#define REC_SENDRECV(name, ctype)                                                                  \
    int MPI_##name (const void *sbuf, ctype scount, MPI_Datatype stype, int dest, int stag,        \
                    void *rbuf, ctype rcount, MPI_Datatype rtype, int source, int rtag,            \
                    MPI_Comm comm, MPI_Status *status)                                             \
    {                                                                                              \
        if (rec.on)                                                                                \
            rec_send (comm, dest, scount, stype);                                                  \
        return PMPI_##name (sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag,    \
                            comm, status);                                                         \
    }

#define REC_SENDRECV_REPLACE(name, ctype)                                                          \
    int MPI_##name (void *buf, ctype count, MPI_Datatype type, int dest, int stag, int source,     \
                    int rtag, MPI_Comm comm, MPI_Status *status)                                   \
    {                                                                                              \
        if (rec.on)                                                                                \
            rec_send (comm, dest, count, type);                                                    \
        return PMPI_##name (buf, count, type, dest, stag, source, rtag, comm, status);             \
    }

#define REC_P2P(suffix, ctype)                                                                     \
    REC_SEND (Send##suffix, ctype)                                                                 \
    REC_SEND (Bsend##suffix, ctype)                                                                \
    REC_SEND (Ssend##suffix, ctype)                                                                \
    REC_SEND (Rsend##suffix, ctype)                                                                \
    REC_ISEND (Isend##suffix, ctype)                                                               \
    REC_ISEND (Ibsend##suffix, ctype)                                                              \
    REC_ISEND (Issend##suffix, ctype)                                                              \
    REC_ISEND (Irsend##suffix, ctype)                                                              \
    REC_SEND_INIT (Send_init##suffix, ctype)                                                       \
    REC_SEND_INIT (Bsend_init##suffix, ctype)                                                      \
    REC_SEND_INIT (Ssend_init##suffix, ctype)                                                      \
    REC_SEND_INIT (Rsend_init##suffix, ctype)                                                      \
    REC_SENDRECV (Sendrecv##suffix, ctype)                                                         \
    REC_SENDRECV_REPLACE (Sendrecv_replace##suffix, ctype)

REC_P2P (, int)
#if MPI_VERSION >= 4
REC_P2P (_c, MPI_Count)
#endif

int MPI_Start (MPI_Request *req)
{
    if (rec.on)
        rec_persist_start (*req);
    return PMPI_Start (req);
}

int MPI_Startall (int count, MPI_Request reqs[])
{
    if (rec.on)
        for (int i = 0; i < count; i++)
            rec_persist_start (reqs[i]);
    return PMPI_Startall (count, reqs);
}

int MPI_Request_free (MPI_Request *req)
{
    if (rec.on)
        rec_persist_drop (*req);
    return PMPI_Request_free (req);
}

int MPI_Bcast (void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    REC_COLL (rec_coll_root (comm, root, NULL, count, type, 1));
    return PMPI_Bcast (buf, count, type, root, comm);
}

int MPI_Scatter (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                 MPI_Datatype rtype, int root, MPI_Comm comm)
{
    REC_COLL (rec_coll_root (comm, root, NULL, scount, stype, 1));
    return PMPI_Scatter (sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
}

int MPI_Scatterv (const void *sbuf, const int scounts[], const int displs[], MPI_Datatype stype,
                  void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
    REC_COLL (rec_coll_root (comm, root, scounts, 0, stype, 1));
    return PMPI_Scatterv (sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm);
}

int MPI_Gather (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                MPI_Datatype rtype, int root, MPI_Comm comm)
{
    REC_COLL (rec_coll_root (comm, root, NULL, scount, stype, 0));
    return PMPI_Gather (sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
}

int MPI_Gatherv (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],
                 const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm)
{
    REC_COLL (rec_coll_root (comm, root, NULL, scount, stype, 0));
    return PMPI_Gatherv (sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm);
}

int MPI_Reduce (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                MPI_Comm comm)
{
    REC_COLL (rec_coll_root (comm, root, NULL, count, type, 0));
    return PMPI_Reduce (sbuf, rbuf, count, type, op, root, comm);
}

int MPI_Allreduce (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                   MPI_Comm comm)
{
    REC_COLL (rec_coll_allreduce (comm, count, type));
    return PMPI_Allreduce (sbuf, rbuf, count, type, op, comm);
}

int MPI_Allgather (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                   MPI_Datatype rtype, MPI_Comm comm)
{
    REC_COLL (rec_coll_allgather (comm, scount, stype));
    return PMPI_Allgather (sbuf, scount, stype, rbuf, rcount, rtype, comm);
}

int MPI_Allgatherv (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                    const int rcounts[], const int displs[], MPI_Datatype rtype, MPI_Comm comm)
{
    REC_COLL (rec_coll_allgather (comm, scount, stype));
    return PMPI_Allgatherv (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm);
}

int MPI_Alltoall (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                  MPI_Datatype rtype, MPI_Comm comm)
{
    REC_COLL (rec_coll_alltoall (comm, NULL, scount, stype));
    return PMPI_Alltoall (sbuf, scount, stype, rbuf, rcount, rtype, comm);
}

int MPI_Alltoallv (const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
                   void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype,
                   MPI_Comm comm)
{
    REC_COLL (rec_coll_alltoall (comm, scounts, 0, stype));
    return PMPI_Alltoallv (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
}
