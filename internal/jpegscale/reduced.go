package jpegscale

import "math"

// The reduced inverse DCT. With the 8-point IDCT of a block's coefficients
// F(u,v),
//
//	f(x,y) = Σ_u Σ_v C(u)/2 · C(v)/2 · F(u,v) · cos((2x+1)uπ/16) · cos((2y+1)vπ/16)
//
// (C(0) = 1/√2, C(u) = 1 otherwise), the mean of f over the k×k samples an
// output sample of a block shrunk k times stands for is the same sum with
// each cosine replaced by its mean over the k positions: a matrix of n×8
// weights (n = 8/k) applied to the rows and then the columns. The result
// is exactly the full-size decode shrunk by a box filter (up to rounding),
// as libjpeg's reduced-size IDCTs give, at a fraction of the full IDCT's
// stores. For k = 8 it is F(0,0)/8, the block's mean.

// reducedBits is the fixed-point precision of reducedCos.
const reducedBits = 13

// reducedCos[shift][y][u] is C(u)/2 times the mean of cos((2x+1)uπ/16)
// over the 2**shift positions x of output sample y, for shift 1 and 2, in
// fixed point with reducedBits fractional bits.
var reducedCos = func() (t [3][4][8]int32) {
	for shift := 1; shift <= 2; shift++ {
		k := 1 << shift
		for y := range 8 / k {
			for u := range 8 {
				c := 1.0
				if u == 0 {
					c = 1 / math.Sqrt2
				}
				var mean float64
				for j := range k {
					mean += math.Cos(float64((2*(k*y+j)+1)*u)*math.Pi/16) / float64(k)
				}
				t[shift][y][u] = int32(math.Round(c / 2 * mean * (1 << reducedBits)))
			}
		}
	}
	return t
}()

// zigzag maps a natural-order coefficient index to its zig-zag index (the
// order of the quantization tables): the inverse of unzig.
var zigzag = func() (z [blockSize]int) {
	for zig, nat := range unzig {
		z[nat] = zig
	}
	return z
}()

// reducedIDCT dequantizes b (in natural order; qt in zig-zag order),
// computes the block shrunk 2**shift times (shift 1 to 3: n×n samples, n =
// 8>>shift), level shifts the samples by 128, clips them to [0, 255] and
// stores them in dst, rows stride bytes apart.
func reducedIDCT(b, qt *block, shift uint, dst []byte, stride int) {
	if shift == 3 {
		dst[0] = clip((b[0]*qt[0] + 4) >> 3)
		return
	}
	n := 8 >> shift
	t := &reducedCos[shift]
	// Rows: tmp[v][x] = Σ_u weight(x,u)·F(u,v), kept with 2 fractional
	// bits (|F| < 2^11 for 8-bit samples and |weight| ≤ 2^12, so every sum
	// here and below stays within 31 bits). Rows of zeros, most of the
	// high frequencies, are skipped.
	var tmp [8][4]int32
	var rows [8]int // the rows not all zero
	nrows := 0
	for v := range 8 {
		var f [8]int32
		nz := false
		for u := range 8 {
			if c := b[v*8+u]; c != 0 {
				f[u] = c * qt[zigzag[v*8+u]]
				nz = true
			}
		}
		if !nz {
			continue
		}
		rows[nrows] = v
		nrows++
		for x := range n {
			w := &t[x]
			s := w[0]*f[0] + w[1]*f[1] + w[2]*f[2] + w[3]*f[3] + w[4]*f[4] + w[5]*f[5] + w[6]*f[6] + w[7]*f[7]
			tmp[v][x] = (s + 1<<(reducedBits-3)) >> (reducedBits - 2)
		}
	}
	// Columns: f(x,y) = Σ_v weight(y,v)·tmp[v][x].
	for y := range n {
		w := &t[y]
		row := dst[y*stride : y*stride+n]
		for x := range n {
			var s int32
			for _, v := range rows[:nrows] {
				s += w[v] * tmp[v][x]
			}
			row[x] = clip((s + 1<<(reducedBits+1)) >> (reducedBits + 2))
		}
	}
}

// clip level shifts a sample by 128 and clips it to [0, 255].
func clip(c int32) uint8 {
	c += 128
	switch {
	case c < 0:
		return 0
	case c > 255:
		return 255
	}
	return uint8(c)
}
