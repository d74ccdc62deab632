#!/usr/bin/env python3
"""Writes cast_vectors.inc: encode/decode test vectors for geon's narrow float formats.

The expected codes come from independent implementations -- numpy (float16), ml_dtypes
(bfloat16, float8*, float4e2m1) and onnx.numpy_helper (saturating casts, float8e8m0) -- so the
C++ tests compare against an oracle, not against themselves. Inputs are seeded random floats
plus every tie point between neighbouring representable values and the floats next to it.

Excluded on purpose (the C++ tests pin the ONNX spec there instead):
  * float4e2m1 NaN: the ONNX float4 spec says NaN -> 6, ml_dtypes (and so the backend test
    data) gives -0, which geon follows; float8_test.cc pins it by hand.
  * float8e8m0 outside [2^-126, 2^127]: onnx.numpy_helper.to_float8e8m0 reads float32 exponent
    bits, so it never saturates inf, never underflows to NaN and mishandles subnormals.
  * float64 sources for ml_dtypes formats: ml_dtypes rounds float64 via float32 (twice).

Run: python3 tests/core/dtype/make_vectors.py  (numpy, ml_dtypes and onnx needed)
"""

import os

import ml_dtypes
import numpy as np
from onnx import numpy_helper

SEED = 20240601
N_RANDOM = 120

rng = np.random.default_rng(SEED)

FLOAT8 = {
    # name: (ml_dtypes type, smallest normal exponent, largest finite exponent)
    "E4M3FN": (ml_dtypes.float8_e4m3fn, -6, 8),
    "E4M3FNUZ": (ml_dtypes.float8_e4m3fnuz, -7, 7),
    "E5M2": (ml_dtypes.float8_e5m2, -14, 15),
    "E5M2FNUZ": (ml_dtypes.float8_e5m2fnuz, -15, 15),
    "E2M1": (ml_dtypes.float4_e2m1fn, 0, 2),
}


def random_f32(lo_exp, hi_exp, n):
    """Random float32 with exponents in [lo_exp, hi_exp], random sign and mantissa bits."""
    exp = rng.integers(lo_exp, hi_exp + 1, n) + 127
    exp = np.clip(exp, 0, 254).astype(np.uint32)
    mant = rng.integers(0, 1 << 23, n, dtype=np.uint32)
    sign = rng.integers(0, 2, n, dtype=np.uint32)
    return ((sign << 31) | (exp << 23) | mant).view(np.float32)


def tie_points(dtype, n_codes, n_sample):
    """Midpoints of neighbouring finite values of `dtype` (n_sample of them, seeded, or all if
    fewer), the floats just either side of each, and the top of the range; both signs."""
    vals = np.arange(n_codes, dtype=np.uint8).view(dtype).astype(np.float64)
    finite = np.unique(vals[np.isfinite(vals)])
    mids = ((finite[:-1] + finite[1:]) / 2).astype(np.float32)  # exact in float32
    if len(mids) > n_sample:
        mids = rng.choice(mids, n_sample, replace=False)
    above = np.nextafter(mids, np.float32(np.inf))
    below = np.nextafter(mids, np.float32(-np.inf))
    top = np.float32(finite[-1])
    # Past the largest value: the tie with the next, unrepresentable step decides overflow.
    step = top - np.float32(finite[-2])
    extra = np.array([top, top + step / 2, np.nextafter(top + step / 2, np.float32(np.inf)),
                      np.nextafter(top + step / 2, np.float32(-np.inf))], np.float32)
    out = np.concatenate([mids, above, below, extra])
    return np.concatenate([out, -out])


def specials():
    return np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1e30, -1e30, 1e-30, -1e-30],
                    np.float32)


def bits32(a):
    return np.asarray(a, np.float32).view(np.uint32)


def fmt_rows(rows, per_line=4):
    lines = []
    for i in range(0, len(rows), per_line):
        lines.append("    " + " ".join(r + "," for r in rows[i:i + per_line]))
    return "\n".join(lines)


def float8_section(name, dtype, min_exp, max_exp):
    n_codes = 16 if name == "E2M1" else 256
    xs = np.concatenate([
        random_f32(min_exp - 5, max_exp + 2, N_RANDOM),
        tie_points(dtype, n_codes, 40),
        specials(),
    ])
    if name == "E2M1":
        xs = xs[~np.isnan(xs)]
    nosat = xs.astype(dtype).view(np.uint8)
    sat = numpy_helper.saturate_cast(xs, dtype).view(np.uint8)
    rows = [f"{{0x{b:08X}u, 0x{s:02X}, 0x{n:02X}}}" for b, s, n in zip(bits32(xs), sat, nosat)]
    dec = np.arange(n_codes, dtype=np.uint8).view(dtype).astype(np.float32)
    dec_rows = [f"0x{b:08X}u" for b in bits32(dec)]
    return (f"// {len(rows)} encodes {{input float bits, saturate=1 code, saturate=0 code}}.\n"
            f"constexpr Float8Vector k{name}Encode[] = {{\n{fmt_rows(rows, 3)}\n}};\n"
            f"// Decoded value (float bits) of every code.\n"
            f"constexpr uint32_t k{name}Decode[] = {{\n{fmt_rows(dec_rows, 6)}\n}};\n")


def half_section():
    xs = np.concatenate([
        random_f32(-27, 17, 2 * N_RANDOM),
        tie_points_16(np.float16),
        specials(),
    ])
    xs = xs[~np.isnan(xs)]  # NaN payload handling is implementation-defined; tested directly
    codes = xs.astype(np.float16).view(np.uint16)
    rows = [f"{{0x{b:08X}u, 0x{c:04X}}}" for b, c in zip(bits32(xs), codes)]
    # float64 sources: numpy rounds float64 -> float16 once; probe just off float16 ties.
    ties = tie_points_16(np.float16).astype(np.float64)
    ties = ties[np.isfinite(ties)]
    d = np.concatenate([ties * (1 + 2.0**-40), ties * (1 - 2.0**-40),
                        rng.standard_normal(N_RANDOM) * 2.0**rng.integers(-26, 17, N_RANDOM)])
    dcodes = d.astype(np.float16).view(np.uint16)
    drows = [f"{{0x{b:016X}ull, 0x{c:04X}}}" for b, c in zip(d.view(np.uint64), dcodes)]
    return (f"constexpr Half32Vector kFloat16Encode[] = {{\n{fmt_rows(rows, 4)}\n}};\n"
            f"constexpr Half64Vector kFloat16EncodeDouble[] = {{\n{fmt_rows(drows, 3)}\n}};\n")


def tie_points_16(dtype):
    """Ties of a 16-bit format sampled: all codes would be 64K, take seeded random neighbours."""
    codes = rng.integers(0, 0x7C00 if dtype == np.float16 else 0x7F80, 60).astype(np.uint16)
    codes = np.concatenate([codes, np.array([0, 1, 0x3FF, 0x400, 0x7BFE, 0x7BFF, 0x7F7E, 0x7F7F],
                                            np.uint16)])
    lo = codes.view(dtype).astype(np.float64)
    hi = (codes + 1).view(dtype).astype(np.float64)
    ok = np.isfinite(lo) & np.isfinite(hi)
    mids = ((lo[ok] + hi[ok]) / 2).astype(np.float32)
    out = np.concatenate([mids, np.nextafter(mids, np.float32(np.inf)),
                          np.nextafter(mids, np.float32(-np.inf))])
    return np.concatenate([out, -out])


def bf16_section():
    xs = np.concatenate([
        random_f32(-140, 127, 2 * N_RANDOM),
        tie_points_16(ml_dtypes.bfloat16),
        specials(),
    ])
    xs = xs[~np.isnan(xs)]
    codes = xs.astype(ml_dtypes.bfloat16).view(np.uint16)
    rows = [f"{{0x{b:08X}u, 0x{c:04X}}}" for b, c in zip(bits32(xs), codes)]
    return f"constexpr Half32Vector kBFloat16Encode[] = {{\n{fmt_rows(rows, 4)}\n}};\n"


def e8m0_section():
    # Random positive floats in [2^-126, 2^127] plus exact powers of two and 1.5 * 2^k ties.
    xs = np.abs(random_f32(-126, 126, N_RANDOM))
    k = rng.integers(-126, 127, 30)
    xs = np.concatenate([xs, np.ldexp(np.float32(1), k).astype(np.float32),
                         np.ldexp(np.float32(1.5), k[k < 126]).astype(np.float32),
                         np.array([2.0**127, 2.0**-126], np.float32)])
    out = []
    codes = {}
    for mode in ("up", "down", "nearest"):
        sat = numpy_helper.to_float8e8m0(xs, True, mode).view(np.uint8)
        nosat = numpy_helper.to_float8e8m0(xs, False, mode).view(np.uint8)
        assert (sat == nosat).all(), "in-range inputs must not depend on saturate"
        codes[mode] = sat
    for i, x in enumerate(bits32(xs)):
        c = [f"0x{codes[m][i]:02X}" for m in ("up", "down", "nearest")]
        out.append(f"{{0x{x:08X}u, {c[0]}, {c[1]}, {c[2]}}}")
    return ("// {input float bits, code for round_mode up, down, nearest} (any saturate).\n"
            f"constexpr E8M0Vector kE8M0Encode[] = {{\n{fmt_rows(out, 4)}\n}};\n")


def main():
    parts = [
        "// Generated by tests/core/dtype/make_vectors.py -- do not edit; rerun the script.\n"
        f"// Oracles: numpy {np.__version__}, ml_dtypes {ml_dtypes.__version__}, "
        "onnx.numpy_helper. Seed " + str(SEED) + ".\n"
        "// The including file defines Float8Vector, Half32Vector, Half64Vector, E8M0Vector.\n"
        "// clang-format off\n"
    ]
    with np.errstate(over="ignore", invalid="ignore"):  # overflow to inf is what we probe
        for name, (dtype, lo, hi) in FLOAT8.items():
            parts.append(float8_section(name, dtype, lo, hi))
        parts.append(half_section())
        parts.append(bf16_section())
        parts.append(e8m0_section())
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cast_vectors.inc")
    with open(path, "w") as f:
        f.write("\n".join(parts))
    print(path, os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
