//! The X server's colour characterization that Xlib falls back to when the screen
//! has none (no `XDCCC_LINEAR_RGB_*` properties on the root window, as under Xvfb and
//! most X servers): "Tektronix 19\" (Sony) CRT", from libX11 `src/xcms/LRGB.c`. The
//! matrices turn CIE XYZ into linear RGB intensities and back; the intensity tables
//! map each channel's intensity to the 16-bit device value, which Xlib then rounds to
//! the visual's 8 bits per channel.
//!
//! The data (and the algorithms this module and its parent follow) come with this
//! notice, which its terms ask to reproduce:
//!
//! > Code and supporting documentation (c) Copyright 1990 1991 Tektronix, Inc.
//! > All Rights Reserved. This file is a component of an X Window System-specific
//! > implementation of Xcms based on the TekColor Color Management System.
//! > Permission is hereby granted to use, copy, modify, sell, and otherwise distribute
//! > this software and its documentation for any purpose and without fee, provided
//! > that this copyright, permission, and disclaimer notice is reproduced in all
//! > copies of this software and in supporting documentation. TekColor is a trademark
//! > of Tektronix, Inc. Tektronix makes no representation about the suitability of
//! > this software for any purpose. It is provided "as is" and with all faults.
//! > TEKTRONIX DISCLAIMS ALL WARRANTIES APPLICABLE TO THIS SOFTWARE, INCLUDING THE
//! > IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE. IN NO
//! > EVENT SHALL TEKTRONIX BE LIABLE FOR ANY SPECIAL, INDIRECT OR CONSEQUENTIAL
//! > DAMAGES OR ANY DAMAGES WHATSOEVER RESULTING FROM LOSS OF USE, DATA, OR PROFITS,
//! > WHETHER IN AN ACTION OF CONTRACT, NEGLIGENCE, OR OTHER TORTIOUS ACTION, ARISING
//! > OUT OF OR IN CONNECTION WITH THE USE OR THE PERFORMANCE OF THIS SOFTWARE.

/// CIE XYZ to RGB intensity.
pub(super) const XYZ_TO_RGB: [[f64; 3]; 3] = [
    [
        3.483_404_812_535_39,
        -1.521_763_749_272_852,
        -0.559_231_333_540_497_8,
    ],
    [
        -1.071_527_513_061_936,
        1.965_937_952_043_724,
        0.036_736_913_395_534_62,
    ],
    [
        0.063_511_797_904_977_88,
        -0.200_205_010_004_964_8,
        0.810_709_420_316_482_2,
    ],
];

/// RGB intensity to CIE XYZ.
pub(super) const RGB_TO_XYZ: [[f64; 3]; 3] = [
    [
        0.381_061_491_087_147_9,
        0.320_257_123_653_521_1,
        0.248_345_785_259_331,
    ],
    [
        0.207_297_451_151_408_5,
        0.680_546_387_763_732_4,
        0.112_156_161_084_859_2,
    ],
    [
        0.021_339_443_500_880_28,
        0.142_971_930_202_464_8,
        1.241_728_926_296_655,
    ],
];

/// The screen's white point: the XYZ of full intensity on every channel, with Y
/// exactly 1 (Xlib sets it so once it is within 0.001).
pub(super) fn white_xyz() -> [f64; 3] {
    let sum = |row: [f64; 3]| row[0] + row[1] + row[2];
    [sum(RGB_TO_XYZ[0]), 1.0, sum(RGB_TO_XYZ[2])]
}

// (device value, intensity) per channel, ascending.
const RED: &[(u16, f64)] = &[
    (0x0000, 0.000000),
    (0x0909, 0.000000),
    (0x0a0a, 0.000936),
    (0x0f0f, 0.001481),
    (0x1414, 0.002329),
    (0x1919, 0.003529),
    (0x1e1e, 0.005127),
    (0x2323, 0.007169),
    (0x2828, 0.009699),
    (0x2d2d, 0.012759),
    (0x3232, 0.016392),
    (0x3737, 0.020637),
    (0x3c3c, 0.025533),
    (0x4141, 0.031119),
    (0x4646, 0.037431),
    (0x4b4b, 0.044504),
    (0x5050, 0.052373),
    (0x5555, 0.061069),
    (0x5a5a, 0.070624),
    (0x5f5f, 0.081070),
    (0x6464, 0.092433),
    (0x6969, 0.104744),
    (0x6e6e, 0.118026),
    (0x7373, 0.132307),
    (0x7878, 0.147610),
    (0x7d7d, 0.163958),
    (0x8282, 0.181371),
    (0x8787, 0.199871),
    (0x8c8c, 0.219475),
    (0x9191, 0.240202),
    (0x9696, 0.262069),
    (0x9b9b, 0.285089),
    (0xa0a0, 0.309278),
    (0xa5a5, 0.334647),
    (0xaaaa, 0.361208),
    (0xafaf, 0.388971),
    (0xb4b4, 0.417945),
    (0xb9b9, 0.448138),
    (0xbebe, 0.479555),
    (0xc3c3, 0.512202),
    (0xc8c8, 0.546082),
    (0xcdcd, 0.581199),
    (0xd2d2, 0.617552),
    (0xd7d7, 0.655144),
    (0xdcdc, 0.693971),
    (0xe1e1, 0.734031),
    (0xe6e6, 0.775322),
    (0xebeb, 0.817837),
    (0xf0f0, 0.861571),
    (0xf5f5, 0.906515),
    (0xfafa, 0.952662),
    (0xffff, 1.000000),
];

const GREEN: &[(u16, f64)] = &[
    (0x0000, 0.000000),
    (0x1313, 0.000000),
    (0x1414, 0.000832),
    (0x1919, 0.001998),
    (0x1e1e, 0.003612),
    (0x2323, 0.005736),
    (0x2828, 0.008428),
    (0x2d2d, 0.011745),
    (0x3232, 0.015740),
    (0x3737, 0.020463),
    (0x3c3c, 0.025960),
    (0x4141, 0.032275),
    (0x4646, 0.039449),
    (0x4b4b, 0.047519),
    (0x5050, 0.056520),
    (0x5555, 0.066484),
    (0x5a5a, 0.077439),
    (0x5f5f, 0.089409),
    (0x6464, 0.102418),
    (0x6969, 0.116485),
    (0x6e6e, 0.131625),
    (0x7373, 0.147853),
    (0x7878, 0.165176),
    (0x7d7d, 0.183604),
    (0x8282, 0.203140),
    (0x8787, 0.223783),
    (0x8c8c, 0.245533),
    (0x9191, 0.268384),
    (0x9696, 0.292327),
    (0x9b9b, 0.317351),
    (0xa0a0, 0.343441),
    (0xa5a5, 0.370580),
    (0xaaaa, 0.398747),
    (0xafaf, 0.427919),
    (0xb4b4, 0.458068),
    (0xb9b9, 0.489165),
    (0xbebe, 0.521176),
    (0xc3c3, 0.554067),
    (0xc8c8, 0.587797),
    (0xcdcd, 0.622324),
    (0xd2d2, 0.657604),
    (0xd7d7, 0.693588),
    (0xdcdc, 0.730225),
    (0xe1e1, 0.767459),
    (0xe6e6, 0.805235),
    (0xebeb, 0.843491),
    (0xf0f0, 0.882164),
    (0xf5f5, 0.921187),
    (0xfafa, 0.960490),
    (0xffff, 1.000000),
];

const BLUE: &[(u16, f64)] = &[
    (0x0000, 0.000000),
    (0x0e0e, 0.000000),
    (0x0f0f, 0.001341),
    (0x1414, 0.002080),
    (0x1919, 0.003188),
    (0x1e1e, 0.004729),
    (0x2323, 0.006766),
    (0x2828, 0.009357),
    (0x2d2d, 0.012559),
    (0x3232, 0.016424),
    (0x3737, 0.021004),
    (0x3c3c, 0.026344),
    (0x4141, 0.032489),
    (0x4646, 0.039481),
    (0x4b4b, 0.047357),
    (0x5050, 0.056154),
    (0x5555, 0.065903),
    (0x5a5a, 0.076634),
    (0x5f5f, 0.088373),
    (0x6464, 0.101145),
    (0x6969, 0.114968),
    (0x6e6e, 0.129862),
    (0x7373, 0.145841),
    (0x7878, 0.162915),
    (0x7d7d, 0.181095),
    (0x8282, 0.200386),
    (0x8787, 0.220791),
    (0x8c8c, 0.242309),
    (0x9191, 0.264937),
    (0x9696, 0.288670),
    (0x9b9b, 0.313499),
    (0xa0a0, 0.339410),
    (0xa5a5, 0.366390),
    (0xaaaa, 0.394421),
    (0xafaf, 0.423481),
    (0xb4b4, 0.453547),
    (0xb9b9, 0.484592),
    (0xbebe, 0.516587),
    (0xc3c3, 0.549498),
    (0xc8c8, 0.583291),
    (0xcdcd, 0.617925),
    (0xd2d2, 0.653361),
    (0xd7d7, 0.689553),
    (0xdcdc, 0.726454),
    (0xe1e1, 0.764013),
    (0xe6e6, 0.802178),
    (0xebeb, 0.840891),
    (0xf0f0, 0.880093),
    (0xf5f5, 0.919723),
    (0xfafa, 0.959715),
    (0xffff, 1.000000),
];

/// Bits per channel of the visual (a 24-bit TrueColor screen).
const BITS_PER_RGB: u32 = 8;
const MAX_COLOR: i64 = (1 << BITS_PER_RGB) - 1;
/// Keeps the significant bits of a 16-bit value.
const MASK: u16 = 0xff00;

/// The 8-bit device value of RGB intensities 0..=1, as Xlib's `XcmsRGBiToRGB`: a
/// binary search of each channel's table and a linear interpolation between the two
/// entries around the intensity, rounded to the nearest 8-bit level.
pub(super) fn device_rgb(intensities: [f64; 3]) -> [u8; 3] {
    let mut out = [0; 3];
    for ((slot, table), key) in out.iter_mut().zip([RED, GREEN, BLUE]).zip(intensities) {
        *slot = (table_search(table, key) >> 8) as u8;
    }
    out
}

/// Xlib's `_XcmsTableSearch` with `_XcmsIntensityInterpolation`, step for step (its
/// search ends between two entries in an order that decides ties).
fn table_search(table: &[(u16, f64)], key: f64) -> u16 {
    let (mut lo, mut hi) = (0, table.len() - 1);
    // Zero intensity (or less) is always the first entry.
    if key <= table[0].1 {
        return table[0].0 & MASK;
    }
    let (mut mid, mut last) = (lo, hi);
    while mid != last {
        last = mid;
        mid = lo + (hi - lo) / 2;
        let at = table[mid].1;
        if key == at {
            return table[mid].0 & MASK;
        } else if key < at {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    let (lo, hi) = (table[lo], table[hi]);
    let ratio = (key - lo.1) / (hi.1 - lo.1);
    // C's `long target = hi - lo; target *= ratio;` truncates.
    let target = ((i64::from(hi.0) - i64::from(lo.0)) as f64 * ratio) as i64 + i64::from(lo.0);
    let shift = 16 - BITS_PER_RGB;
    let mut up = ((target >> shift) * 0xffff) / MAX_COLOR;
    let down;
    if up < target {
        down = up;
        up = (((down >> shift) + 1).min(MAX_COLOR) * 0xffff) / MAX_COLOR;
    } else {
        down = (((up >> shift) - 1).max(0) * 0xffff) / MAX_COLOR;
    }
    let value = if up - target < target - down {
        up
    } else {
        down
    };
    (value as u16) & MASK
}
