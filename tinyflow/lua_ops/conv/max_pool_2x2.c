/* Max pooling of 2x2 windows at stride 2 without padding (TensorFlow's VALID, and SAME on even
   sizes), float32, channels-last: x [N, H, W, C] -> y [N, H/2, W/2, C] and index, the argmax as
   torch's max_pool2d_with_indices gives it (the place in the input plane, h * W + w), which the
   backward and the second-order gather read.  A window's maximum is its first greatest value in
   row order, and a NaN wins (torch's rule, so both kernels give the same bits).

   Eight channels at a time in GCC / Clang vector types (lowered to AVX, NEON...); the last
   block of a row overlaps the one before when C is not a multiple of 8 (it computes the same
   values again), so C >= 8: the caller checks it, and every size. */
#include <stdint.h>
#include <string.h>

typedef float f8 __attribute__((vector_size(32)));
typedef int32_t i8 __attribute__((vector_size(32)));
typedef int64_t l8 __attribute__((vector_size(64)));

static inline f8 load(const float *p) { f8 v; memcpy(&v, p, sizeof v); return v; }
static inline void store(float *p, f8 v) { memcpy(p, &v, sizeof v); }
/* lanes where v replaces the maximum m so far: greater, or NaN */
static inline i8 wins(f8 v, f8 m) { return (v > m) | (v != v); }
static inline f8 pick(i8 mask, f8 a, f8 b) { return (f8)((mask & (i8)a) | (~mask & (i8)b)); }
static inline i8 pick_int(i8 mask, i8 a, i8 b) { return (mask & a) | (~mask & b); }
/* the first channel of the 8-channel block holding channel i of a row of C */
static inline int64_t block(int64_t i, int64_t C) { return i + 8 <= C ? i : C - 8; }

void max_pool_2x2_forward(const float *restrict x, float *restrict y, int64_t *restrict index,
                          int64_t N, int64_t H, int64_t W, int64_t C) {
  int64_t OH = H / 2, OW = W / 2;
  i8 right = (i8){0} + 1, below = (i8){0} + (int32_t)W, diagonal = below + 1;
  for (int64_t n = 0; n < N; n++)
    for (int64_t i = 0; i < OH; i++)
      for (int64_t j = 0; j < OW; j++) {
        const float *top = x + ((n * H + 2 * i) * W + 2 * j) * C, *bottom = top + W * C;
        int64_t out = ((n * OH + i) * OW + j) * C, corner = 2 * i * W + 2 * j;
        for (int64_t b = 0; b < C; b += 8) {
          int64_t c = block(b, C);
          f8 m = load(top + c), v;
          i8 at = {0}, mask;
          const float *others[3] = {top + C + c, bottom + c, bottom + C + c};
          i8 places[3] = {right, below, diagonal};
          for (int k = 0; k < 3; k++) {
            v = load(others[k]);
            mask = wins(v, m);
            m = pick(mask, v, m);
            at = pick_int(mask, places[k], at);
          }
          store(y + out + c, m);
          l8 place = __builtin_convertvector(at, l8) + corner;
          memcpy(index + out + c, &place, sizeof place);
        }
      }
}

/* gx [N, H, W, C] from g [N, H/2, W/2, C]: each window's four get g where index points, 0
   elsewhere (gx's rows and columns past 2 * (H/2), 2 * (W/2) are the caller's to zero). */
void max_pool_2x2_backward(const float *restrict g, const int64_t *restrict index,
                           float *restrict gx, int64_t N, int64_t H, int64_t W, int64_t C) {
  int64_t OH = H / 2, OW = W / 2;
  for (int64_t n = 0; n < N; n++)
    for (int64_t i = 0; i < OH; i++)
      for (int64_t j = 0; j < OW; j++) {
        float *top = gx + ((n * H + 2 * i) * W + 2 * j) * C, *bottom = top + W * C;
        int64_t out = ((n * OH + i) * OW + j) * C, corner = 2 * i * W + 2 * j;
        for (int64_t b = 0; b < C; b += 8) {
          int64_t c = block(b, C);
          f8 v = load(g + out + c), zero = {0};
          l8 place;
          memcpy(&place, index + out + c, sizeof place);
          i8 at = __builtin_convertvector(place - corner, i8);
          store(top + c, pick(at == 0, v, zero));
          store(top + C + c, pick(at == 1, v, zero));
          store(bottom + c, pick(at == (int32_t)W, v, zero));
          store(bottom + C + c, pick(at == (int32_t)W + 1, v, zero));
        }
      }
}
