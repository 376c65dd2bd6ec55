/* The slave's per-record work, compiled (agents.store._fastscan): the replication scan, dispatch grouping and the
 * message index's reading and filing of keys (at the end).
 *
 * All are fast paths that never decide anything on their own: for every case but the common one they stop and
 * leave the work to the Python code they speed up, which stays the only place that names an error.
 *
 * record.py owns the record format and every error message. This module only runs its common case faster:
 * `scan` walks message records from `i` while each is one that record._check_record would accept without a
 * word (intact sizes and CRCs, a topic already in `topics`, non-negative queue numbers, room for a blank), adds
 * its packed dispatch entry, and stops at the first record it does not accept for any reason: a blank, a tail that is
 * still incomplete, a topic not seen yet, or damage. record.py then judges that record itself (and raises the
 * RecordError that names the problem), so a record this code misjudges can only be slowed down, never let
 * through. The tests run every scan through both paths and compare them.
 *
 * Per 4 KiB record the Python loop took ~5 us (most of it interpreter work around the CRC calls); this takes the
 * body's CRC plus well under a microsecond. The body CRC is computed here by carry-less multiplication (PCLMULQDQ,
 * the folding of Intel's "Fast CRC Computation for Generic Polynomials" and Linux's crc32-pclmul) where the CPU
 * has it: calling back into Python for ISA-L's cost ~0.2 us per record, a third of a 1 KiB record's scan.
 * Elsewhere it goes through the `crc` callable it is given (ISA-L's). Both give zlib's CRC-32 values.
 *
 * `group_entries` does MessageStore._dispatch's grouping: the entries a scan kept, in log order, become one run
 * of packed consume-queue entries per (topic, queue id), as long as every queue's offsets follow on; at the
 * first entry that does not, it stops and MessageStore takes its own loop, which names the problem.
 *
 * Entries are packed structs (record.ENTRY), never Python objects: per 1 KiB record a tuple of five cost ~0.13 us
 * to build and about as much again to group and free, all of it holding the GIL that the slave's receiving and
 * writing threads share. Both functions hold the GIL only to look up a topic the batch has not named before and
 * to build the result; long batches are checked and grouped without it.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <limits.h>
#include <string.h>
#include <zlib.h>
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define CLMUL_BUILT 1
#endif

/* The layout of record.py; it checks these against its own constants before it uses this module. */
#define MESSAGE_MAGIC 0x4D514D32u
#define FIXED_SIZE 38 /* totalSize i32, magic i32, headerCRC u32, bodyCRC u32, queueId i32, queueOffset i64,
                         storeTimestamp i64, topicLen u16 */
#define LEN_SIZE 4
#define BLANK_SIZE 12

static uint32_t be32(const unsigned char *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static uint64_t be64(const unsigned char *p) { return ((uint64_t)be32(p) << 32) | be32(p + 4); }

#ifdef CLMUL_BUILT
/* Fold 128 bits of state into the next 128 bits of data (k: the two folding constants for the distance). */
__attribute__((target("pclmul,sse4.1"))) static inline __m128i fold(__m128i x, __m128i data, __m128i k) {
    return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11)), data);
}

/* The CRC register (not inverted, zlib's polynomial reflected) after `len` more bytes; len >= 16, len % 16 == 0.
 * From 64 bytes on, four 16-byte lanes are folded at once; a shorter run (a record's header, ~50 bytes for a
 * short topic and few properties) is folded one lane at a time, which is still several times faster than
 * zlib's table for these lengths. */
__attribute__((target("pclmul,sse4.1"))) static uint32_t crc32_clmul(uint32_t reg, const unsigned char *p,
                                                                     size_t len) {
    const __m128i k4x = _mm_set_epi64x(0x1c6e41596, 0x154442bd4); /* x^(4*128+32), x^(4*128-32) mod P */
    const __m128i k1x = _mm_set_epi64x(0x0ccaa009e, 0x1751997d0); /* x^(128+32), x^(128-32) mod P */
    const __m128i k64 = _mm_set_epi64x(0, 0x163cd6124);           /* x^64 mod P */
    const __m128i barrett = _mm_set_epi64x(0x1f7011641, 0x1db710641); /* mu = x^64 / P, and P */
    const __m128i low32 = _mm_set_epi32(0, 0, 0, -1);
    __m128i x0 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)p), _mm_cvtsi32_si128((int)reg));
    if (len >= 64) {
        __m128i x1 = _mm_loadu_si128((const __m128i *)(p + 16)), x2 = _mm_loadu_si128((const __m128i *)(p + 32));
        __m128i x3 = _mm_loadu_si128((const __m128i *)(p + 48));
        for (p += 64, len -= 64; len >= 64; p += 64, len -= 64) {
            x0 = fold(x0, _mm_loadu_si128((const __m128i *)p), k4x);
            x1 = fold(x1, _mm_loadu_si128((const __m128i *)(p + 16)), k4x);
            x2 = fold(x2, _mm_loadu_si128((const __m128i *)(p + 32)), k4x);
            x3 = fold(x3, _mm_loadu_si128((const __m128i *)(p + 48)), k4x);
        }
        x0 = fold(fold(fold(x0, x1, k1x), x2, k1x), x3, k1x);
    } else {
        p += 16;
        len -= 16;
    }
    for (; len >= 16; p += 16, len -= 16) x0 = fold(x0, _mm_loadu_si128((const __m128i *)p), k1x);
    /* 128 bits to 64, 64 to 32, then Barrett's reduction to the 32-bit remainder */
    x0 = _mm_xor_si128(_mm_clmulepi64_si128(x0, k1x, 0x10), _mm_srli_si128(x0, 8));
    x0 = _mm_xor_si128(_mm_srli_si128(x0, 4), _mm_clmulepi64_si128(_mm_and_si128(x0, low32), k64, 0x00));
    __m128i t = _mm_and_si128(_mm_clmulepi64_si128(_mm_and_si128(x0, low32), barrett, 0x10), low32);
    x0 = _mm_xor_si128(x0, _mm_clmulepi64_si128(t, barrett, 0x00));
    return (uint32_t)_mm_extract_epi32(x0, 1);
}
#endif

static int use_clmul = 0; /* set at import: the CPU has PCLMULQDQ and SSE4.1 */

/* zlib's crc32(value, p, len): the carry-less multiplication for the whole 16-byte blocks, zlib for the rest. */
static uint32_t crc32_of(uint32_t value, const unsigned char *p, size_t len) {
#ifdef CLMUL_BUILT
    if (use_clmul && len >= 16) {
        const size_t blocks = len & ~(size_t)15;
        value = ~crc32_clmul(~value, p, blocks);
        p += blocks;
        len -= blocks;
    }
#endif
    return (uint32_t)crc32(value, p, (uInt)len);
}

/* Whether crc(body) equals `expected`; -1 with an exception set if the callable failed. */
static int body_crc_matches(PyObject *crc, const unsigned char *body, Py_ssize_t len, uint32_t expected) {
    if (use_clmul) return crc32_of(0, body, (size_t)len) == expected;
    PyObject *view = PyMemoryView_FromMemory((char *)body, len, PyBUF_READ);
    if (view == NULL) return -1;
    PyObject *value = PyObject_CallOneArg(crc, view);
    Py_DECREF(view);
    if (value == NULL) return -1;
    unsigned long got = PyLong_AsUnsignedLong(value);
    Py_DECREF(value);
    if (got == (unsigned long)-1 && PyErr_Occurred()) return -1;
    return got == expected;
}

/* A dispatch entry packed as record.ENTRY ("=qqiii4x"): no Python object per record, so that neither the scan
 * nor the grouping allocates per message (tuples cost ~0.13 us per record, and their grouping more). */
typedef struct {
    int64_t pos, queue_offset;
    int32_t total, queue_id, topic, unused;
} PackedEntry;
_Static_assert(sizeof(PackedEntry) == 32, "record.ENTRY is 32 bytes");

PyDoc_STRVAR(scan_doc,
             "scan(view, i, pos, segment_size, min_record, max_record, entries, topics, crc) -> (i, pos)\n\n"
             "Walk the ordinary message records of view[i:] (commit-log offset pos), appending each one's packed\n"
             "entry to the bytearray `entries` (topics: raw topic bytes -> topic id), and return where the first\n"
             "record it does not accept starts. Never raises for bad data.");

/* A record that passed every check but its topic's: where it starts in the buffer and its entry's numbers. */
typedef struct {
    Py_ssize_t at;
    long long total, queue_offset;
    long queue_id;
    Py_ssize_t topic_len;
} Checked;

typedef struct {
    long long segment_size, min_record, max_record;
} Limits;

#define CHECK_CHUNK 4096             /* records checked per pass (a bounded array, not one per possible record) */
#define RELEASE_GIL_FROM (64 * 1024) /* bytes left to scan from which the checks run without the GIL */

/* The records from buf[i:] (commit-log offset pos) that pass every check but the topic's, at most `cap`, into
 * `out`; returns how many, or -1 with an exception set if the crc callable failed. Touches no Python object
 * when use_clmul is set, so it may run without the GIL: a replicating slave writes the batch before on another
 * thread meanwhile (agents/ha/appender.py). */
static Py_ssize_t check_records(const unsigned char *buf, Py_ssize_t n, Py_ssize_t i, long long pos,
                                const Limits *lim, PyObject *crc, Checked *out, Py_ssize_t cap) {
    Py_ssize_t count = 0;
    while (count < cap && i <= n - FIXED_SIZE) {
        const unsigned char *p = buf + i;
        long long total = (int32_t)be32(p);
        if (be32(p + 4) != MESSAGE_MAGIC || total < lim->min_record || total > lim->max_record) break;
        if (total + BLANK_SIZE > lim->segment_size - pos % lim->segment_size || total > n - i) break;
        const Py_ssize_t end = i + (Py_ssize_t)total;
        const uint32_t header_crc = be32(p + 8), body_crc = be32(p + 12);
        const long queue_id = (int32_t)be32(p + 16);
        const long long queue_offset = (int64_t)be64(p + 20);
        const Py_ssize_t topic_len = ((Py_ssize_t)p[36] << 8) | p[37];
        const Py_ssize_t props_at = i + FIXED_SIZE + topic_len;
        if (props_at + LEN_SIZE > end) break;
        const long long props_len = (int32_t)be32(buf + props_at);
        if (props_len < 0 || props_at + LEN_SIZE + props_len + LEN_SIZE > end) break;
        const Py_ssize_t body_len_at = props_at + LEN_SIZE + (Py_ssize_t)props_len;
        const long long body_len = (int32_t)be32(buf + body_len_at);
        const Py_ssize_t body_at = body_len_at + LEN_SIZE;
        if (body_len != end - body_at || queue_id < 0 || queue_offset < 0) break;
        const uint32_t header = crc32_of(crc32_of(0, p, 8), p + 12, (size_t)(body_at - i - 12));
        if (header != header_crc) break;
        const int body_ok = body_crc_matches(crc, buf + body_at, (Py_ssize_t)body_len, body_crc);
        if (body_ok < 0) return -1;
        if (!body_ok) break;
        out[count++] = (Checked){i, total, queue_offset, queue_id, topic_len};
        i = end;
        pos += total;
    }
    return count;
}

static PyObject *scan(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 9) {
        PyErr_SetString(PyExc_TypeError, "scan() takes 9 arguments");
        return NULL;
    }
    Py_ssize_t i = PyLong_AsSsize_t(args[1]);
    long long pos = PyLong_AsLongLong(args[2]);
    const Limits lim = {PyLong_AsLongLong(args[3]), PyLong_AsLongLong(args[4]), PyLong_AsLongLong(args[5])};
    if (PyErr_Occurred()) return NULL;
    PyObject *entries = args[6], *topics = args[7], *crc = args[8];
    if (!PyByteArray_Check(entries) || !PyDict_Check(topics) || lim.segment_size <= 0 || i < 0 || pos < 0) {
        PyErr_SetString(PyExc_ValueError, "scan(): bad arguments");
        return NULL;
    }
    Checked *checked = PyMem_Malloc(CHECK_CHUNK * sizeof(Checked));
    if (checked == NULL) return PyErr_NoMemory();
    Py_buffer buffer;
    if (PyObject_GetBuffer(args[0], &buffer, PyBUF_SIMPLE) < 0) {
        PyMem_Free(checked);
        return NULL;
    }
    const unsigned char *buf = buffer.buf;
    const Py_ssize_t n = buffer.len;
    const unsigned char *last_raw = NULL; /* the last message's topic bytes (inside buf) */
    Py_ssize_t last_len = 0;
    long last_topic = -1; /* the id of the topic named by last_raw */
    int failed = 0, stopped = 0;

    while (!failed && !stopped) {
        Py_ssize_t count;
        if (use_clmul && n - i >= RELEASE_GIL_FROM) {
            Py_BEGIN_ALLOW_THREADS count = check_records(buf, n, i, pos, &lim, crc, checked, CHECK_CHUNK);
            Py_END_ALLOW_THREADS
        } else {
            count = check_records(buf, n, i, pos, &lim, crc, checked, CHECK_CHUNK);
        }
        if (count < 0) {
            failed = 1;
            break;
        }
        stopped = count < CHECK_CHUNK;
        const Py_ssize_t had = PyByteArray_GET_SIZE(entries);
        if (PyByteArray_Resize(entries, had + count * (Py_ssize_t)sizeof(PackedEntry)) < 0) {
            failed = 1;
            break;
        }
        Py_ssize_t added = 0;
        for (Py_ssize_t k = 0; k < count; k++) {
            const Checked *c = &checked[k];
            const unsigned char *raw = buf + c->at + FIXED_SIZE;
            if (last_topic < 0 || c->topic_len != last_len || memcmp(raw, last_raw, (size_t)c->topic_len) != 0) {
                PyObject *key = PyBytes_FromStringAndSize((const char *)raw, c->topic_len);
                if (key == NULL) {
                    failed = 1;
                    break;
                }
                PyObject *topic = PyDict_GetItemWithError(topics, key);
                Py_DECREF(key);
                if (topic == NULL) {
                    failed = PyErr_Occurred() != NULL;
                    stopped = 1;
                    break; /* a topic record.py has not checked yet: it checks it, then this goes on */
                }
                last_topic = PyLong_AsLong(topic);
                if (last_topic < 0 || last_topic > INT32_MAX) {
                    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "scan(): a topic id out of range");
                    failed = 1;
                    break;
                }
                last_raw = raw;
                last_len = c->topic_len;
            }
            const PackedEntry entry = {pos, c->queue_offset, (int32_t)c->total, (int32_t)c->queue_id,
                                       (int32_t)last_topic, 0};
            memcpy(PyByteArray_AS_STRING(entries) + had + added * (Py_ssize_t)sizeof(PackedEntry), &entry,
                   sizeof(entry));
            added++;
            i = c->at + (Py_ssize_t)c->total;
            pos += c->total;
        }
        if (added < count && PyByteArray_Resize(entries, had + added * (Py_ssize_t)sizeof(PackedEntry)) < 0) {
            failed = 1;
        }
    }
    PyBuffer_Release(&buffer);
    PyMem_Free(checked);
    if (failed) return NULL;
    return Py_BuildValue("(nL)", i, pos);
}

/* One queue's run while grouping: consecutive queue offsets from first_qoff, their consume-queue entries in buf. */
typedef struct {
    uint64_t key; /* topic id << 32 | queue id */
    long long first_offset, first_qoff, next_qoff, last_offset;
    Py_ssize_t count;
    unsigned char *buf;
    Py_ssize_t len, cap;
} Run;

/* The runs of one grouping and an open-addressing index of them by key; plain C memory (PyMem_Raw*), so that the
 * grouping can run without the GIL. */
typedef struct {
    Run *runs;
    Py_ssize_t count, cap;
    int32_t *slots; /* run index + 1; 0 = empty */
    size_t mask;
} Grouping;

#define NO_MEMORY (-2)

static void put_be(unsigned char *p, uint64_t value, int bytes) {
    for (int k = bytes - 1; k >= 0; k--, value >>= 8) p[k] = (unsigned char)value;
}

static size_t slot_of(uint64_t key, size_t mask) { return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 17) & mask; }

static int grow_slots(Grouping *g) {
    const size_t size = g->slots ? (g->mask + 1) * 2 : 64;
    int32_t *slots = PyMem_RawCalloc(size, sizeof(int32_t));
    if (slots == NULL) return -1;
    for (Py_ssize_t r = 0; r < g->count; r++) {
        size_t at = slot_of(g->runs[r].key, size - 1);
        while (slots[at]) at = (at + 1) & (size - 1);
        slots[at] = (int32_t)(r + 1);
    }
    PyMem_RawFree(g->slots);
    g->slots = slots;
    g->mask = size - 1;
    return 0;
}

/* The index of the run for `key` (a new run starting at this entry if there is none), or NO_MEMORY. */
static Py_ssize_t find_run(Grouping *g, uint64_t key, long long offset, long long qoff) {
    if (g->slots == NULL || (size_t)(g->count + 1) * 2 > g->mask + 1) {
        if (grow_slots(g) < 0) return NO_MEMORY;
    }
    size_t at = slot_of(key, g->mask);
    for (; g->slots[at]; at = (at + 1) & g->mask) {
        if (g->runs[g->slots[at] - 1].key == key) return g->slots[at] - 1;
    }
    if (g->count == g->cap) {
        const Py_ssize_t grown = g->cap ? g->cap * 2 : 16;
        Run *more = PyMem_RawRealloc(g->runs, (size_t)grown * sizeof(Run));
        if (more == NULL) return NO_MEMORY;
        g->runs = more;
        g->cap = grown;
    }
    Run *run = &g->runs[g->count];
    memset(run, 0, sizeof(*run));
    run->key = key;
    run->first_offset = offset;
    run->first_qoff = run->next_qoff = qoff;
    g->slots[at] = (int32_t)(g->count + 1);
    return g->count++;
}

static int append_entry(Run *run, long long offset, long size) {
    if (run->len + 12 > run->cap) {
        Py_ssize_t grown = run->cap ? run->cap * 2 : 12 * 64;
        unsigned char *more = PyMem_RawRealloc(run->buf, (size_t)grown);
        if (more == NULL) return NO_MEMORY;
        run->buf = more;
        run->cap = grown;
    }
    put_be(run->buf + run->len, (uint64_t)offset, 8);
    put_be(run->buf + run->len + 8, (uint64_t)(uint32_t)size, 4);
    run->len += 12;
    run->next_qoff++;
    run->last_offset = offset;
    run->count++;
    return 0;
}

/* Group entries[0:n] into g; returns how many follow on in their queues (the index of the first that does not),
 * or NO_MEMORY. Touches no Python object. */
static Py_ssize_t group(const PackedEntry *entries, Py_ssize_t n, Grouping *g) {
    Py_ssize_t last = -1, k;
    for (k = 0; k < n; k++) {
        PackedEntry e;
        memcpy(&e, &entries[k], sizeof(e));
        if (e.total <= 0 || e.pos < 0 || e.topic < 0 || e.queue_id < 0) break;
        const uint64_t key = ((uint64_t)(uint32_t)e.topic << 32) | (uint32_t)e.queue_id;
        Py_ssize_t r = last;
        if (r < 0 || g->runs[r].key != key) {
            r = find_run(g, key, e.pos, e.queue_offset);
            if (r < 0) return NO_MEMORY;
        }
        if (e.queue_offset != g->runs[r].next_qoff) break;
        if (append_entry(&g->runs[r], e.pos, e.total) < 0) return NO_MEMORY;
        last = r;
    }
    return k;
}

PyDoc_STRVAR(group_doc,
             "group_entries(entries, names) -> (runs, reached)\n\n"
             "Group packed dispatch entries (record.ENTRY), in log order, into one run per queue: (topic,\n"
             "queue_id, first_offset, first_queue_offset, count, last_offset, packed), the topic being names[id]\n"
             "and `packed` the consume-queue entries (offset i64, size i32, big-endian). `reached` is the index of\n"
             "the first entry that does not follow on in its queue (or cannot be one), else the entry count.");

#define GROUP_WITHOUT_GIL_FROM 256 /* entries; fewer are grouped faster than the GIL is given up and taken back */

static PyObject *group_entries(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 2 || !PyList_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "group_entries() takes packed entries and a list of topic names");
        return NULL;
    }
    PyObject *names = args[1];
    Py_buffer buffer;
    if (PyObject_GetBuffer(args[0], &buffer, PyBUF_SIMPLE) < 0) return NULL;
    if (buffer.len % (Py_ssize_t)sizeof(PackedEntry)) {
        PyBuffer_Release(&buffer);
        PyErr_SetString(PyExc_ValueError, "group_entries(): not a whole number of packed entries");
        return NULL;
    }
    const Py_ssize_t n = buffer.len / (Py_ssize_t)sizeof(PackedEntry);
    Grouping g = {0};
    Py_ssize_t reached;
    if (n >= GROUP_WITHOUT_GIL_FROM) {
        Py_BEGIN_ALLOW_THREADS reached = group(buffer.buf, n, &g);
        Py_END_ALLOW_THREADS
    } else {
        reached = group(buffer.buf, n, &g);
    }
    PyBuffer_Release(&buffer);
    PyObject *result = NULL, *list = NULL;
    if (reached == NO_MEMORY) {
        PyErr_NoMemory();
        goto done;
    }
    list = PyList_New(g.count);
    if (list == NULL) goto done;
    for (Py_ssize_t r = 0; r < g.count; r++) {
        const Run *run = &g.runs[r];
        const Py_ssize_t topic = (Py_ssize_t)(run->key >> 32);
        if (topic >= PyList_GET_SIZE(names)) {
            PyErr_SetString(PyExc_ValueError, "group_entries(): an entry names an unknown topic id");
            goto done;
        }
        PyObject *tuple = Py_BuildValue("(OlLLnLy#)", PyList_GET_ITEM(names, topic), (long)(int32_t)(uint32_t)run->key,
                                        run->first_offset, run->first_qoff, run->count, run->last_offset,
                                        (const char *)run->buf, run->len);
        if (tuple == NULL) goto done;
        PyList_SET_ITEM(list, r, tuple);
    }
    result = Py_BuildValue("(On)", list, reached);
done:
    Py_XDECREF(list);
    for (Py_ssize_t r = 0; r < g.count; r++) PyMem_RawFree(g.runs[r].buf);
    PyMem_RawFree(g.runs);
    PyMem_RawFree(g.slots);
    return result;
}

PyDoc_STRVAR(crc32_doc, "crc32(data, value=0, /) -> int\n\n"
                        "zlib.crc32's value, computed as scan() computes body CRCs (BODY_CRC says how).");

static PyObject *crc32_py(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    unsigned long value = 0;
    if (nargs < 1 || nargs > 2) {
        PyErr_SetString(PyExc_TypeError, "crc32() takes 1 or 2 arguments");
        return NULL;
    }
    if (nargs == 2) {
        value = PyLong_AsUnsignedLong(args[1]);
        if (value == (unsigned long)-1 && PyErr_Occurred()) return NULL;
    }
    Py_buffer buffer;
    if (PyObject_GetBuffer(args[0], &buffer, PyBUF_SIMPLE) < 0) return NULL;
    const uint32_t result = crc32_of((uint32_t)value, buffer.buf, (size_t)buffer.len);
    PyBuffer_Release(&buffer);
    return PyLong_FromUnsignedLong(result);
}

/* --- the message index (index.py) ----------------------------------------------------------------------------
 *
 * `index_keys` reads what the index files from the records of a log window, as CommitLog.key_entries would one
 * record at a time in Python (record.keys_at, index.record_entries): the words of KEYS, then UNIQ_KEY, each once,
 * hashed with the topic. Like the scan it only takes the common case and stops at anything else (a blank, the
 * window's end, damage, a record with more than INDEX_KEYS_MAX keys), which the Python code then reads. Per
 * record with two keys Python took ~8 us (framing, two property searches, three CRC calls, tuples); this ~0.3.
 *
 * `index_add` files packed entries in a mapped index file as index.add_entries does, chaining each in front of its
 * slot's newest entry; it changes only the bytes add_entries would. */

#define INDEX_KEYS_MAX 64 /* a record with more distinct keys is left to index.py (it dedupes with a dict) */
#define INDEX_HEADER_SIZE 40
#define INDEX_SLOT_SIZE 4
#define INDEX_ENTRY_SIZE 20

/* A key entry packed as index.KEY_ENTRY ("=qqi4x"): commit-log offset, store time (ms), key hash. */
typedef struct {
    int64_t phy, ts;
    int32_t hash, unused;
} KeyEntry;
_Static_assert(sizeof(KeyEntry) == 24, "index.KEY_ENTRY is 24 bytes");

typedef struct {
    const unsigned char *p;
    Py_ssize_t len;
} Span;

/* The value of property `name` (its separator included) in raw properties, as record._raw_property: only a match
 * at a pair's start counts; an empty span when absent or unterminated. */
static Span raw_property(const unsigned char *raw, Py_ssize_t n, const char *name, Py_ssize_t name_len) {
    for (Py_ssize_t at = 0; at + name_len <= n; at++) {
        const unsigned char *hit = memchr(raw + at, name[0], (size_t)(n - name_len - at + 1));
        if (hit == NULL) break;
        at = hit - raw;
        if (memcmp(hit, name, (size_t)name_len) != 0) continue;
        if (at > 0 && raw[at - 1] != 2) continue;
        const unsigned char *value = hit + name_len;
        const unsigned char *end = memchr(value, 2, (size_t)(raw + n - value));
        return end == NULL ? (Span){NULL, 0} : (Span){value, end - value};
    }
    return (Span){NULL, 0};
}

/* Add `key` to the record's keys unless empty or already there; 0 when there would be too many. */
static int add_key(Span *keys, Py_ssize_t *count, Span key) {
    if (key.len == 0) return 1;
    for (Py_ssize_t k = 0; k < *count; k++) {
        if (keys[k].len == key.len && memcmp(keys[k].p, key.p, (size_t)key.len) == 0) return 1;
    }
    if (*count == INDEX_KEYS_MAX) return 0;
    keys[(*count)++] = key;
    return 1;
}

/* The keys of the message record at buf[i:] (framing checked as record._layout without CRCs); -1 where there is
 * no such record or it has too many keys. *total and *ts are its size and store time. */
static Py_ssize_t record_keys(const unsigned char *buf, Py_ssize_t n, Py_ssize_t i, long long remaining,
                              const Limits *lim, Span *keys, long long *total, long long *ts, Span *topic) {
    if (i > n - FIXED_SIZE) return -1;
    const unsigned char *p = buf + i;
    *total = (int32_t)be32(p);
    if (be32(p + 4) != MESSAGE_MAGIC || *total < lim->min_record || *total > lim->max_record) return -1;
    if (*total > n - i || *total + BLANK_SIZE > remaining) return -1;
    const Py_ssize_t end = i + (Py_ssize_t)*total;
    const Py_ssize_t topic_len = ((Py_ssize_t)p[36] << 8) | p[37];
    const Py_ssize_t props_at = i + FIXED_SIZE + topic_len;
    if (props_at + LEN_SIZE > end) return -1;
    const long long props_len = (int32_t)be32(buf + props_at);
    if (props_len < 0 || props_at + LEN_SIZE + props_len + LEN_SIZE > end) return -1;
    const Py_ssize_t body_len_at = props_at + LEN_SIZE + (Py_ssize_t)props_len;
    if ((int32_t)be32(buf + body_len_at) != end - body_len_at - LEN_SIZE) return -1;
    *ts = (int64_t)be64(p + 28);
    *topic = (Span){p + FIXED_SIZE, topic_len};
    const unsigned char *raw = buf + props_at + LEN_SIZE;
    const Span words = raw_property(raw, (Py_ssize_t)props_len, "KEYS\x01", 5);
    const Span unique = raw_property(raw, (Py_ssize_t)props_len, "UNIQ_KEY\x01", 9);
    Py_ssize_t count = 0;
    for (Py_ssize_t at = 0; at <= words.len && words.p != NULL;) {
        const unsigned char *space = memchr(words.p + at, ' ', (size_t)(words.len - at));
        const Py_ssize_t stop = space == NULL ? words.len : space - words.p;
        if (!add_key(keys, &count, (Span){words.p + at, stop - at})) return -1;
        at = stop + 1;
    }
    if (!add_key(keys, &count, unique)) return -1;
    return count;
}

PyDoc_STRVAR(index_keys_doc,
             "index_keys(view, i, pos, segment_remaining, min_record, max_record, max_keys, out) -> i\n\n"
             "Append to the bytearray `out` the packed key entries (index.KEY_ENTRY) of the message records of\n"
             "view[i:] (commit-log offset pos, segment_remaining bytes left in its segment there), at most\n"
             "max_keys a record, and return where the first record it does not read starts. Never raises for\n"
             "bad data.");

static PyObject *index_keys(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 8) {
        PyErr_SetString(PyExc_TypeError, "index_keys() takes 8 arguments");
        return NULL;
    }
    Py_ssize_t i = PyLong_AsSsize_t(args[1]);
    long long pos = PyLong_AsLongLong(args[2]), remaining = PyLong_AsLongLong(args[3]);
    const Limits lim = {0, PyLong_AsLongLong(args[4]), PyLong_AsLongLong(args[5])};
    const Py_ssize_t max_keys = PyLong_AsSsize_t(args[6]);
    if (PyErr_Occurred()) return NULL;
    PyObject *out = args[7];
    if (!PyByteArray_Check(out) || i < 0 || pos < 0 || max_keys < 1) {
        PyErr_SetString(PyExc_ValueError, "index_keys(): bad arguments");
        return NULL;
    }
    Py_buffer buffer;
    if (PyObject_GetBuffer(args[0], &buffer, PyBUF_SIMPLE) < 0) return NULL;
    const unsigned char *buf = buffer.buf;
    Span keys[INDEX_KEYS_MAX], topic;
    long long total, ts;
    int failed = 0;
    for (;;) {
        Py_ssize_t count = record_keys(buf, buffer.len, i, remaining, &lim, keys, &total, &ts, &topic);
        if (count < 0) break;
        if (count > max_keys) count = max_keys;
        const Py_ssize_t had = PyByteArray_GET_SIZE(out);
        if (PyByteArray_Resize(out, had + count * (Py_ssize_t)sizeof(KeyEntry)) < 0) {
            failed = 1;
            break;
        }
        const uint32_t seed = crc32_of(crc32_of(0, topic.p, (size_t)topic.len), (const unsigned char *)"#", 1);
        for (Py_ssize_t k = 0; k < count; k++) {
            const uint32_t h = crc32_of(seed, keys[k].p, (size_t)keys[k].len) & 0x7FFFFFFFu;
            const KeyEntry entry = {pos, ts, (int32_t)h, 0};
            memcpy(PyByteArray_AS_STRING(out) + had + k * (Py_ssize_t)sizeof(KeyEntry), &entry, sizeof(entry));
        }
        i += (Py_ssize_t)total;
        pos += total;
        remaining -= total;
    }
    PyBuffer_Release(&buffer);
    if (failed) return NULL;
    return PyLong_FromSsize_t(i);
}

PyDoc_STRVAR(index_add_doc,
             "index_add(buf, slots, capacity, count, used, begin_ts, entries) -> (count, used, end_ts)\n\n"
             "File the packed key entries in the index file mapped by the writable `buf` (slots hash slots, room\n"
             "for capacity entries, count of them and used slots taken, times relative to begin_ts) as\n"
             "index.add_entries does; end_ts is the latest entry's store time. ValueError when they do not fit.");

static void put_be32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static PyObject *index_add(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "index_add() takes 7 arguments");
        return NULL;
    }
    const long long slots = PyLong_AsLongLong(args[1]), capacity = PyLong_AsLongLong(args[2]);
    long long count = PyLong_AsLongLong(args[3]), used = PyLong_AsLongLong(args[4]);
    const long long begin_ts = PyLong_AsLongLong(args[5]);
    if (PyErr_Occurred()) return NULL;
    if (slots < 1 || slots > INT32_MAX || capacity < 1 || capacity > INT32_MAX || count < 0 || count > capacity) {
        PyErr_SetString(PyExc_ValueError, "index_add(): bad arguments");
        return NULL;
    }
    Py_buffer file, packed;
    if (PyObject_GetBuffer(args[0], &file, PyBUF_WRITABLE) < 0) return NULL;
    if (PyObject_GetBuffer(args[6], &packed, PyBUF_SIMPLE) < 0) {
        PyBuffer_Release(&file);
        return NULL;
    }
    const Py_ssize_t n = packed.len / (Py_ssize_t)sizeof(KeyEntry);
    const long long entries_at = INDEX_HEADER_SIZE + slots * INDEX_SLOT_SIZE;
    long long end_ts = LLONG_MIN;
    const char *problem = NULL;
    if (file.len < entries_at + capacity * INDEX_ENTRY_SIZE) problem = "index_add(): the buffer is too short";
    else if (packed.len % (Py_ssize_t)sizeof(KeyEntry) != 0) problem = "index_add(): entries are not whole";
    else if (count + n > capacity) problem = "the index file is full";
    if (problem == NULL) {
        unsigned char *buf = file.buf;
        const KeyEntry *entries = packed.buf;
        Py_BEGIN_ALLOW_THREADS for (Py_ssize_t k = 0; k < n; k++) {
            KeyEntry e;
            memcpy(&e, &entries[k], sizeof(e));
            unsigned char *slot = buf + INDEX_HEADER_SIZE + ((uint32_t)e.hash % slots) * INDEX_SLOT_SIZE;
            long long prev = (int32_t)be32(slot);
            if (!(prev > 0 && prev <= count)) { /* a slot pointing past the count is stale (a crashed file's) */
                prev = 0;
                used++;
            }
            count++;
            unsigned char *at = buf + entries_at + (count - 1) * INDEX_ENTRY_SIZE;
            long long diff = e.ts - begin_ts;
            diff = diff < 0 ? 0 : diff / 1000;
            put_be32(at, (uint32_t)e.hash);
            put_be32(at + 4, (uint32_t)((uint64_t)e.phy >> 32));
            put_be32(at + 8, (uint32_t)e.phy);
            put_be32(at + 12, (uint32_t)(diff > INT32_MAX ? INT32_MAX : diff));
            put_be32(at + 16, (uint32_t)prev);
            put_be32(slot, (uint32_t)count);
            if (e.ts > end_ts) end_ts = e.ts;
        }
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&packed);
    PyBuffer_Release(&file);
    if (problem != NULL) {
        PyErr_SetString(PyExc_ValueError, problem);
        return NULL;
    }
    return Py_BuildValue("(LLL)", count, used, end_ts);
}

static PyMethodDef methods[] = {
    {"crc32", (PyCFunction)(void (*)(void))crc32_py, METH_FASTCALL, crc32_doc},
    {"scan", (PyCFunction)(void (*)(void))scan, METH_FASTCALL, scan_doc},
    {"group_entries", (PyCFunction)(void (*)(void))group_entries, METH_FASTCALL, group_doc},
    {"index_keys", (PyCFunction)(void (*)(void))index_keys, METH_FASTCALL, index_keys_doc},
    {"index_add", (PyCFunction)(void (*)(void))index_add, METH_FASTCALL, index_add_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_fastscan",
    .m_doc = "Compiled fast paths of the slave's per-record work (record.py, message_store.py).",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__fastscan(void) {
#ifdef CLMUL_BUILT
    __builtin_cpu_init();
    use_clmul = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
#endif
    PyObject *module = PyModule_Create(&module_def);
    if (module == NULL) return NULL;
    if (PyModule_AddIntConstant(module, "MESSAGE_MAGIC", (long)MESSAGE_MAGIC) < 0 ||
        PyModule_AddIntConstant(module, "FIXED_SIZE", FIXED_SIZE) < 0 ||
        PyModule_AddIntConstant(module, "LEN_SIZE", LEN_SIZE) < 0 ||
        PyModule_AddIntConstant(module, "BLANK_SIZE", BLANK_SIZE) < 0 ||
        PyModule_AddIntConstant(module, "ENTRY_SIZE", (long)sizeof(PackedEntry)) < 0 ||
        PyModule_AddIntConstant(module, "KEY_ENTRY_SIZE", (long)sizeof(KeyEntry)) < 0 ||
        PyModule_AddIntConstant(module, "INDEX_ENTRY_SIZE", INDEX_ENTRY_SIZE) < 0 ||
        PyModule_AddStringConstant(module, "BODY_CRC", use_clmul ? "pclmulqdq" : "callable") < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
