/* A hand-written C reference of the compiled engine's UCT (mctslab/engine/kernels.py).
 *
 * The same algorithm, step for step: the same tree of slots (a block of slots per expanded
 * node, one per legal move, ascending; a random untried move swapped to the front of the
 * untried part becomes the next child), the same UCB1 (mean + c * sqrt(ln N) / sqrt(n), the
 * first child on a tie), the same random playouts, the same backup in half points, and the
 * same random numbers (xorshift64*, seeded with splitmix64, as mctslab/games/_jit.py), so that
 * one search here builds the engine's tree bit for bit from the same seed. Games, their constants (prm, tab) and the
 * position (st) are exactly those of mctslab.engine.tables and Game.compiled_state.
 *
 * Built by mctslab.bench.creference with the system compiler (floating-point contraction
 * off: a fused multiply-add would round UCB1 differently from Numba). Compiled with -DMCTS_MT
 * (Numba's MT19937, the engine's generator until 2026-11-30) or -DMCTS_PCG (PCG64), it draws
 * other numbers (other trees, the same work): the benchmark uses them to measure what a
 * generator costs.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { TICTACTOE = 0, CONNECT4 = 1, ULTIMATE = 2 };
enum { ONGOING = -1, DRAWN = 2 };

/* -- the generator --------------------------------------------------------------------- */

#if !defined(MCTS_MT) && !defined(MCTS_PCG)
/* xorshift64* (Vigna 2016; shifts 12, 25, 27, multiplier 0x2545F4914F6CDD1D), the engine's
 * generator (mctslab/games/_jit.py): seeded with splitmix64 of the 32-bit seed, a double of the
 * top 53 bits of each output. */
typedef struct {
    uint64_t x;
} rng_t;

static void rng_seed(rng_t *r, uint32_t seed) { /* splitmix64(seed), as mctslab.games._jit.seed_state */
    uint64_t z = (uint64_t)seed + 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    r->x = z ? z : 0x9E3779B97F4A7C15ULL;
}

static inline double rng_double(rng_t *r) {
    uint64_t x = r->x;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    r->x = x;
    return (double)((x * 0x2545F4914F6CDD1DULL) >> 11) * (1.0 / 9007199254740992.0);
}
#elif defined(MCTS_MT)
/* Measurement only (bench --c's generator columns): MT19937 as Numba's np.random (seeded as
 * numba_rnd_init, a double of two 32-bit draws as get_next_double), the engine's generator
 * before 2026-11-30. */
#define MT_N 624
#define MT_M 397
typedef struct {
    uint32_t mt[MT_N];
    int index;
} rng_t;

static void rng_seed(rng_t *r, uint32_t seed) { /* numba_rnd_init */
    for (int pos = 0; pos < MT_N; pos++) {
        r->mt[pos] = seed;
        seed = 1812433253U * (seed ^ (seed >> 30)) + (uint32_t)pos + 1U;
    }
    r->index = MT_N;
}

static void rng_shuffle(rng_t *r) { /* numba_rnd_shuffle */
    uint32_t *mt = r->mt, y;
    int i;
    for (i = 0; i < MT_N - MT_M; i++) {
        y = (mt[i] & 0x80000000U) | (mt[i + 1] & 0x7fffffffU);
        mt[i] = mt[i + MT_M] ^ (y >> 1) ^ (-(uint32_t)(y & 1) & 0x9908b0dfU);
    }
    for (; i < MT_N - 1; i++) {
        y = (mt[i] & 0x80000000U) | (mt[i + 1] & 0x7fffffffU);
        mt[i] = mt[i + (MT_M - MT_N)] ^ (y >> 1) ^ (-(uint32_t)(y & 1) & 0x9908b0dfU);
    }
    y = (mt[MT_N - 1] & 0x80000000U) | (mt[0] & 0x7fffffffU);
    mt[MT_N - 1] = mt[MT_M - 1] ^ (y >> 1) ^ (-(uint32_t)(y & 1) & 0x9908b0dfU);
    r->index = 0;
}

static inline uint32_t rng_u32(rng_t *r) {
    if (__builtin_expect(r->index >= MT_N, 0)) rng_shuffle(r);
    uint32_t y = r->mt[r->index++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= y >> 18;
    return y;
}

static inline double rng_double(rng_t *r) { /* Numba's get_next_double: a first, then b */
    uint32_t a = rng_u32(r) >> 5;
    uint32_t b = rng_u32(r) >> 6;
    return ((double)b + (double)a * 67108864.0) / 9007199254740992.0;
}
#else
/* Measurement only: PCG64 (O'Neill 2014's XSL-RR output on a 128-bit LCG), a double of the top 53 bits. */
typedef struct {
    __uint128_t s;
} rng_t;

#define PCG_MUL (((__uint128_t)2549297995355413924ULL << 64) | 4865540595714422341ULL)
#define PCG_INC (((__uint128_t)6364136223846793005ULL << 64) | 1442695040888963407ULL)

static void rng_seed(rng_t *r, uint32_t seed) {
    r->s = 0;
    r->s = r->s * PCG_MUL + PCG_INC;
    r->s += seed;
    r->s = r->s * PCG_MUL + PCG_INC;
}

static inline double rng_double(rng_t *r) {
    r->s = r->s * PCG_MUL + PCG_INC;
    uint64_t x = (uint64_t)(r->s >> 64) ^ (uint64_t)r->s;
    unsigned rot = (unsigned)(r->s >> 122);
    x = (x >> rot) | (x << ((-rot) & 63));
    return (double)(x >> 11) * (1.0 / 9007199254740992.0);
}
#endif

/* int(np.random.random() * n) */
static inline int64_t draw(rng_t *r, int64_t n) { return (int64_t)(rng_double(r) * (double)n); }

/* -- the games (prm, tab and st as in mctslab/engine/kernels.py) ------------------------ */

typedef struct {
    int kind;
    const int64_t *prm;
    const int64_t *tab;
    int64_t cols; /* tab's row length */
} game_t;

#define TAB(g, i, j) ((g)->tab[(i) * (g)->cols + (j)])

static inline int ttt_completes(const game_t *g, int64_t stones, int64_t cell) {
    int64_t lines = TAB(g, cell, 0);
    for (int64_t j = 0; j < lines; j++) {
        int64_t m = TAB(g, cell, 1 + j);
        if ((stones & m) == m) return 1;
    }
    return 0;
}

static inline int c4_won(const game_t *g, int64_t bits) {
    int64_t plan = g->prm[5];
    if (plan == 2 && g->tab[1] == 2) { /* k = 4: the shifts (1, 2) along each direction */
        int64_t h = g->prm[3];
        int64_t m = bits & (bits >> 1);
        if (m & (m >> 2)) return 1;
        m = bits & (bits >> h);
        if (m & (m >> (2 * h))) return 1;
        m = bits & (bits >> (h + 1));
        if (m & (m >> (2 * (h + 1)))) return 1;
        m = bits & (bits >> (h - 1));
        return (m & (m >> (2 * (h - 1)))) != 0;
    }
    for (int d = 0; d < 4; d++) {
        int64_t m = bits;
        for (int64_t j = 0; j < plan; j++) m &= m >> TAB(g, d, j);
        if (m) return 1;
    }
    return 0;
}

static inline void ut_apply(const game_t *g, int64_t *st, int64_t move) {
    int64_t p = st[1], board = move / 9, cell = move - 9 * board, k = 2 + 9 * p + board;
    st[k] |= (int64_t)1 << cell;
    if (TAB(g, 0, st[k])) {
        st[20 + p] |= (int64_t)1 << board;
        st[22] |= (int64_t)1 << board;
        if (g->prm[0] || TAB(g, 0, st[20 + p])) st[0] = p;
    }
    if ((st[2 + board] | st[11 + board]) == 511) st[22] |= (int64_t)1 << board;
    st[1] = 1 - p;
    if (st[0] != ONGOING)
        st[23] = -1;
    else if (st[22] == 511) {
        st[0] = DRAWN;
        st[23] = -1;
    } else if ((st[22] >> cell) & 1)
        st[23] = -1;
    else
        st[23] = cell;
}

static inline void apply_move(const game_t *g, int64_t *st, int64_t move) {
    const int64_t *prm = g->prm;
    int64_t p = st[1];
    if (g->kind == TICTACTOE) {
        st[2 + p] |= (int64_t)1 << move;
        if (ttt_completes(g, st[2 + p], move))
            st[0] = p;
        else if ((st[2] | st[3]) == prm[3])
            st[0] = DRAWN;
        st[1] = 1 - p;
    } else if (g->kind == CONNECT4) {
        int64_t occupied = st[2] | st[3], height = prm[3];
        int64_t column = (((int64_t)1 << prm[0]) - 1) << (move * height);
        int64_t bit = (occupied + ((int64_t)1 << (move * height))) & column;
        st[2 + p] |= bit;
        if (c4_won(g, st[2 + p]))
            st[0] = p;
        else if ((occupied | bit) == prm[4])
            st[0] = DRAWN;
        st[1] = 1 - p;
    } else {
        ut_apply(g, st, move);
    }
}

static int legal_moves(const game_t *g, const int64_t *st, int64_t *out) {
    const int64_t *prm = g->prm;
    int n = 0;
    if (st[0] != ONGOING) return 0;
    if (g->kind == TICTACTOE) {
        int64_t occupied = st[2] | st[3];
        for (int64_t cell = 0; cell < prm[2]; cell++)
            if (!((occupied >> cell) & 1)) out[n++] = cell;
    } else if (g->kind == CONNECT4) {
        int64_t occupied = st[2] | st[3];
        for (int64_t c = 0; c < prm[1]; c++)
            if (!((occupied >> (c * prm[3] + prm[0] - 1)) & 1)) out[n++] = c;
    } else {
        int64_t forced = st[23];
        for (int64_t board = 0; board < 9; board++) {
            if ((forced >= 0 && board != forced) || ((st[22] >> board) & 1)) continue;
            int64_t occupied = st[2 + board] | st[11 + board];
            for (int64_t cell = 0; cell < 9; cell++)
                if (!((occupied >> cell) & 1)) out[n++] = 9 * board + cell;
        }
    }
    return n;
}

static int64_t ttt_rollout(const game_t *g, int64_t *st, int64_t *buf, int64_t limit, rng_t *r) {
    int64_t n = legal_moves(g, st, buf), p = st[1], mine = st[2 + p], theirs = st[3 - p];
    int64_t steps = n < limit ? n : limit;
    for (int64_t s = 0; s < steps; s++) {
        int64_t i = draw(r, n), cell = buf[i];
        buf[i] = buf[--n];
        mine |= (int64_t)1 << cell;
        if (ttt_completes(g, mine, cell)) return p;
        int64_t t = mine;
        mine = theirs;
        theirs = t;
        p = 1 - p;
    }
    return DRAWN;
}

static int64_t c4_rollout(const game_t *g, int64_t *st, int64_t *buf, int64_t limit, rng_t *r) {
    int64_t n = legal_moves(g, st, buf), p = st[1], mine = st[2 + p], theirs = st[3 - p];
    int64_t rows = g->prm[0], height = g->prm[3], occupied = mine | theirs, colmask = ((int64_t)1 << rows) - 1;
    for (int64_t steps = 0; n > 0 && steps < limit; steps++) {
        int64_t i = draw(r, n), c = buf[i];
        int64_t bit = (occupied + ((int64_t)1 << (c * height))) & (colmask << (c * height));
        occupied |= bit;
        mine |= bit;
        if ((occupied >> (c * height + rows - 1)) & 1) buf[i] = buf[--n];
        if (c4_won(g, mine)) return p;
        int64_t t = mine;
        mine = theirs;
        theirs = t;
        p = 1 - p;
    }
    return DRAWN;
}

static int64_t ut_rollout(const game_t *g, int64_t *st, int64_t limit, rng_t *r) {
    for (int64_t steps = 0; st[0] == ONGOING; steps++) {
        if (steps >= limit) return DRAWN;
        int64_t board = st[23], free = 0, i;
        if (board >= 0) {
            free = 511 & ~(st[2 + board] | st[11 + board]);
            i = draw(r, TAB(g, 1, free));
        } else {
            int64_t total = 0;
            for (int b = 0; b < 9; b++)
                if (!((st[22] >> b) & 1)) total += TAB(g, 1, 511 & ~(st[2 + b] | st[11 + b]));
            i = draw(r, total);
            for (int b = 0; b < 9; b++) {
                if ((st[22] >> b) & 1) continue;
                free = 511 & ~(st[2 + b] | st[11 + b]);
                if (i < TAB(g, 1, free)) {
                    board = b;
                    break;
                }
                i -= TAB(g, 1, free);
            }
        }
        ut_apply(g, st, 9 * board + TAB(g, 2 + i, free));
    }
    return st[0];
}

static int64_t rollout(const game_t *g, int64_t *st, int64_t *buf, int64_t limit, rng_t *r) {
    if (st[0] != ONGOING) return st[0];
    if (g->kind == TICTACTOE) return ttt_rollout(g, st, buf, limit, r);
    if (g->kind == CONNECT4) return c4_rollout(g, st, buf, limit, r);
    return ut_rollout(g, st, limit, r);
}

/* -- the search -------------------------------------------------------------------------- */

/* sqrt(ln n) and 1 / sqrt(n) for n < ROOTS, computed when first needed (0: not yet), as the
 * engine's table (kernels.ROOTS): the same doubles as computing them each time, without the log. */
#define ROOTS (1 << 16)
static double roots[2][ROOTS];

static inline double sqrt_log(int32_t n) {
    if (n >= ROOTS) return sqrt(log((double)n));
    double v = roots[0][n];
    if (v == 0.0) roots[0][n] = v = sqrt(log((double)n));
    return v;
}

static inline double inv_sqrt(int32_t n) {
    if (n >= ROOTS) return 1.0 / sqrt((double)n);
    double v = roots[1][n];
    if (v == 0.0) roots[1][n] = v = 1.0 / sqrt((double)n);
    return v;
}

typedef struct { /* one slot: what selection reads first, together */
    double mean, isq;
    int32_t move, first, visits, wins2;
    int16_t nlegal, nexp;
} slot_t;

/* One UCT search of `budget` iterations from st (a position of st_len int64s), seeded with
 * `seed`. The tree's slots (move, first, nlegal, nexp, visits, wins2), up to `out_len` of them,
 * are copied to the out arrays when they are not NULL; info = [slots used, deepest node].
 * Returns the iterations done, or -1 when memory runs out. */
int64_t mcts_uct(int kind, const int64_t *prm, const int64_t *tab, int64_t tab_cols, const int64_t *root_st,
                 int64_t st_len, double c, int64_t limit, int64_t budget, uint32_t seed, int64_t out_len,
                 int32_t *out_move, int32_t *out_first, int32_t *out_nlegal, int32_t *out_nexp, int32_t *out_visits,
                 int32_t *out_wins2, int64_t *info) {
    game_t game = {kind, prm, tab, tab_cols}, *g = &game;
    int64_t block = kind == ULTIMATE ? 81 : kind == TICTACTOE ? prm[2] : prm[1];
    int64_t capacity = 1 + budget * block, used = 1, deepest = 0, mover0 = root_st[1];
    int64_t st[32], buf[128], path[256];
    slot_t *t = calloc((size_t)capacity, sizeof(slot_t)); /* untried slots hold zeros, as the engine's */
    rng_t *r = malloc(sizeof(rng_t));
    if (!t || !r || st_len > 32) {
        free(t);
        free(r);
        return -1;
    }
    rng_seed(r, seed);
    memset(&t[0], 0, sizeof(slot_t));
    t[0].move = -1;
    t[0].first = -1;
    t[0].mean = 0.5;
    t[0].isq = INFINITY;
    int64_t done;
    for (done = 0; done < budget; done++) {
        memcpy(st, root_st, (size_t)st_len * sizeof(int64_t));
        int64_t node = 0, depth = 0;
        path[0] = 0;
        for (;;) {
            slot_t *s = &t[node];
            int64_t f = s->first;
            if (f < 0) {
                if (st[0] != ONGOING) break; /* a terminal leaf */
                f = used;
                int n = legal_moves(g, st, buf);
                for (int j = 0; j < n; j++) t[f + j].move = (int32_t)buf[j];
                s->first = (int32_t)f;
                s->nlegal = (int16_t)n;
                s->nexp = 0;
                used = f + n;
            }
            int64_t ne = s->nexp, nl = s->nlegal;
            if (ne < nl) { /* expand a random untried move */
                int64_t i = ne + draw(r, nl - ne), child = f + ne;
                int32_t m = t[f + i].move;
                t[f + i].move = t[child].move;
                slot_t *k = &t[child];
                k->move = m;
                k->first = -1;
                k->visits = 0;
                k->wins2 = 0;
                k->nlegal = 0;
                k->nexp = 0;
                k->mean = 0.5;
                k->isq = INFINITY;
                s->nexp = (int16_t)(ne + 1);
                apply_move(g, st, m);
                path[++depth] = child;
                break;
            }
            if (nl == 0) break;
            double scale = c * sqrt_log(s->visits);
            int64_t best = f;
            double best_value = -INFINITY;
            for (int64_t j = f; j < f + nl; j++) {
                double value = t[j].mean + scale * t[j].isq;
                if (value > best_value) {
                    best = j;
                    best_value = value;
                }
            }
            node = best;
            apply_move(g, st, t[node].move);
            path[++depth] = node;
        }
        int64_t result = rollout(g, st, buf, limit, r);
        for (int64_t d = 0; d <= depth; d++) {
            slot_t *s = &t[path[d]];
            int64_t player = (mover0 + d + 1) & 1;
            s->visits += 1;
            if (result == player)
                s->wins2 += 2;
            else if (result == DRAWN)
                s->wins2 += 1;
            s->mean = (double)s->wins2 / (2.0 * (double)s->visits);
            s->isq = inv_sqrt(s->visits);
        }
        if (depth > deepest) deepest = depth;
    }
    if (out_move) {
        for (int64_t j = 0; j < used && j < out_len; j++) {
            out_move[j] = t[j].move;
            out_first[j] = t[j].first;
            out_nlegal[j] = t[j].nlegal;
            out_nexp[j] = t[j].nexp;
            out_visits[j] = t[j].visits;
            out_wins2[j] = t[j].wins2;
        }
    }
    info[0] = used;
    info[1] = deepest;
    free(t);
    free(r);
    return done;
}

/* `playouts` random playouts from st, as the engine's random_results: counts[0..2] = X wins, O wins,
 * draws. Returns 0, or -1 for a position longer than this file handles. */
int64_t mcts_playouts(int kind, const int64_t *prm, const int64_t *tab, int64_t tab_cols, const int64_t *root_st,
                      int64_t st_len, int64_t playouts, int64_t limit, uint32_t seed, int64_t *counts) {
    game_t game = {kind, prm, tab, tab_cols};
    int64_t st[32], buf[128];
    rng_t r;
    if (st_len > 32) return -1;
    rng_seed(&r, seed);
    counts[0] = counts[1] = counts[2] = 0;
    for (int64_t k = 0; k < playouts; k++) {
        memcpy(st, root_st, (size_t)st_len * sizeof(int64_t));
        counts[rollout(&game, st, buf, limit, &r)] += 1;
    }
    return 0;
}
