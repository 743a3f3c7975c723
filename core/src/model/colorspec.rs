//! The device-independent colour specifications of `XParseColor` (Xcms): `RGBi:`,
//! `CIEXYZ:`, `CIEuvY:`, `CIExyY:`, `CIELab:`, `CIELuv:` and `TekHVC:`, each three
//! `/`-separated decimal numbers, converted to an 8-bit device colour.
//!
//! The formulas are the ones Xlib documents for Xcms (XYZ, xyY, u'v'Y, L*a*b*, L*u*v*
//! and TekHVC relative to the white point). What Xcms does next depends on the X
//! server's colour characterization of the screen; tern has no X server, so its device
//! is sRGB: D65 white point, the sRGB XYZ-to-linear-RGB matrix, channels outside 0..1
//! clipped, then the sRGB transfer curve (`RGBi:` is linear intensity, as in Xcms, and
//! goes through the same curve). The numbers therefore differ from an xterm's on a
//! particular X server by its characterization (see docs/CONFORMANCE.md).

use super::palette::Rgb;

/// D65, the sRGB white point, as XYZ with Y = 1.
const WHITE_XYZ: [f64; 3] = [0.950_47, 1.0, 1.088_83];

/// CIE 1976 u'v' of a colour given as XYZ (`None` for black).
fn uv_prime([x, y, z]: [f64; 3]) -> Option<(f64, f64)> {
    let d = x + 15.0 * y + 3.0 * z;
    (d > 0.0).then(|| (4.0 * x / d, 9.0 * y / d))
}

/// The colour space named by a (case-insensitive) `XParseColor` prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Space {
    RgbIntensity,
    Xyz,
    UvY,
    XyY,
    Lab,
    Luv,
    TekHvc,
}

const PREFIXES: &[(&str, Space)] = &[
    ("rgbi:", Space::RgbIntensity),
    ("ciexyz:", Space::Xyz),
    ("cieuvy:", Space::UvY),
    ("ciexyy:", Space::XyY),
    ("cielab:", Space::Lab),
    ("cieluv:", Space::Luv),
    ("tekhvc:", Space::TekHvc),
];

/// Parses one of the device-independent specifications; `None` when `spec` is not one
/// of them or its numbers are not three finite decimals in the space's range.
pub fn parse(spec: &str) -> Option<Rgb> {
    let (space, rest) = PREFIXES.iter().find_map(|&(prefix, space)| {
        let head = spec.get(..prefix.len())?;
        head.eq_ignore_ascii_case(prefix)
            .then(|| (space, &spec[prefix.len()..]))
    })?;
    let mut parts = rest.split('/');
    let mut next = || -> Option<f64> {
        let v: f64 = parts.next()?.trim().parse().ok()?;
        v.is_finite().then_some(v)
    };
    let values = [next()?, next()?, next()?];
    if parts.next().is_some() {
        return None;
    }
    let linear = match space {
        Space::RgbIntensity => {
            if !values.iter().all(|v| (0.0..=1.0).contains(v)) {
                return None;
            }
            values
        }
        Space::Xyz => xyz_to_linear_rgb(values),
        Space::UvY => xyz_to_linear_rgb(uvy_to_xyz(values)?),
        Space::XyY => xyz_to_linear_rgb(xyy_to_xyz(values)?),
        Space::Lab => xyz_to_linear_rgb(lab_to_xyz(values)?),
        Space::Luv => xyz_to_linear_rgb(luv_to_xyz(values)?),
        Space::TekHvc => xyz_to_linear_rgb(tekhvc_to_xyz(values)?),
    };
    let [r, g, b] = linear.map(encode);
    Some(Rgb::new(r, g, b))
}

/// CIE XYZ to linear sRGB (IEC 61966-2-1).
fn xyz_to_linear_rgb([x, y, z]: [f64; 3]) -> [f64; 3] {
    [
        3.240_6 * x - 1.537_2 * y - 0.498_6 * z,
        -0.968_9 * x + 1.875_8 * y + 0.041_5 * z,
        0.055_7 * x - 0.204_0 * y + 1.057_0 * z,
    ]
}

/// A linear channel, clipped to 0..1, through the sRGB transfer curve to 8 bits.
fn encode(linear: f64) -> u8 {
    let c = linear.clamp(0.0, 1.0);
    let v = if c <= 0.003_130_8 {
        12.92 * c
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    };
    (v * 255.0).round().clamp(0.0, 255.0) as u8
}

/// x, y chromaticity and luminance Y to XYZ.
fn xyy_to_xyz([x, y, big_y]: [f64; 3]) -> Option<[f64; 3]> {
    if !(0.0..=1.0).contains(&x) || !(0.0..=1.0).contains(&y) || !(0.0..=1.0).contains(&big_y) {
        return None;
    }
    if y == 0.0 {
        return Some([0.0; 3]);
    }
    Some([x * big_y / y, big_y, (1.0 - x - y) * big_y / y])
}

/// u', v' chromaticity and luminance Y to XYZ.
fn uvy_to_xyz([u, v, big_y]: [f64; 3]) -> Option<[f64; 3]> {
    if !(0.0..=1.0).contains(&big_y) || u < 0.0 || v < 0.0 {
        return None;
    }
    let d = 6.0 * u - 16.0 * v + 12.0;
    if v == 0.0 || d == 0.0 {
        return Some([0.0; 3]);
    }
    xyy_to_xyz([9.0 * u / d, 4.0 * v / d, big_y])
}

/// Y relative to the white point from L* (0..100), CIE 1976.
fn lightness_to_y(l: f64) -> f64 {
    let f = (l + 16.0) / 116.0;
    if f > 6.0 / 29.0 {
        f * f * f
    } else {
        3.0 * (6.0_f64 / 29.0).powi(2) * (f - 4.0 / 29.0)
    }
}

fn lab_f_inverse(t: f64) -> f64 {
    if t > 6.0 / 29.0 {
        t * t * t
    } else {
        3.0 * (6.0_f64 / 29.0).powi(2) * (t - 4.0 / 29.0)
    }
}

/// CIE L*a*b* (L* 0..100) to XYZ, D65 white.
fn lab_to_xyz([l, a, b]: [f64; 3]) -> Option<[f64; 3]> {
    if !(0.0..=100.0).contains(&l) {
        return None;
    }
    let fy = (l + 16.0) / 116.0;
    let fx = fy + a / 500.0;
    let fz = fy - b / 200.0;
    let [xn, yn, zn] = WHITE_XYZ;
    Some([
        xn * lab_f_inverse(fx),
        yn * lab_f_inverse(fy),
        zn * lab_f_inverse(fz),
    ])
}

/// u'v' and Y (0..1) to XYZ through [`uvy_to_xyz`], black for Y = 0.
fn uv_y_to_xyz(u: f64, v: f64, big_y: f64) -> Option<[f64; 3]> {
    if big_y <= 0.0 {
        return Some([0.0; 3]);
    }
    uvy_to_xyz([u.max(0.0), v.max(0.0), big_y.min(1.0)])
}

/// CIE L*u*v* (L* 0..100) to XYZ, D65 white.
fn luv_to_xyz([l, u, v]: [f64; 3]) -> Option<[f64; 3]> {
    if !(0.0..=100.0).contains(&l) {
        return None;
    }
    if l == 0.0 {
        return Some([0.0; 3]);
    }
    let (un, vn) = uv_prime(WHITE_XYZ)?;
    uv_y_to_xyz(u / (13.0 * l) + un, v / (13.0 * l) + vn, lightness_to_y(l))
}

/// Tektronix HVC (hue in degrees 0..360, value 0..100, chroma 0..100) to XYZ: V is L*,
/// and hue and chroma are the angle and distance from the white point in the u'v'
/// plane, the angle measured from the direction of Tektronix's "best red" (u' 0.7127,
/// v' 0.4931), the distance scaled by 7.50725 per unit of V (Xlib's TekHVC constants).
fn tekhvc_to_xyz([h, v, c]: [f64; 3]) -> Option<[f64; 3]> {
    const BEST_RED: (f64, f64) = (0.7127, 0.4931);
    const CHROMA_SCALE: f64 = 7.50725;
    if !(0.0..=360.0).contains(&h) || !(0.0..=100.0).contains(&v) || !(0.0..=100.0).contains(&c) {
        return None;
    }
    if v == 0.0 {
        return Some([0.0; 3]);
    }
    let (un, vn) = uv_prime(WHITE_XYZ)?;
    let offset = (BEST_RED.1 - vn).atan2(BEST_RED.0 - un);
    let angle = h.to_radians() + offset;
    let distance = c / (v * CHROMA_SCALE);
    uv_y_to_xyz(
        un + distance * angle.cos(),
        vn + distance * angle.sin(),
        lightness_to_y(v),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const WHITE: Option<Rgb> = Some(Rgb::new(255, 255, 255));
    const BLACK: Option<Rgb> = Some(Rgb::new(0, 0, 0));

    #[test]
    fn rgb_intensity_is_linear_light_through_the_srgb_curve() {
        assert_eq!(parse("RGBi:1/1/1"), WHITE);
        assert_eq!(parse("rgbi:0/0/0"), BLACK);
        // 0.5 linear is 0.735 encoded: 0xbc (xterm 379 under Xvfb, through Xlib's
        // default characterization: c1/bb/bb).
        assert_eq!(parse("rgbi:0.5/0.5/0.5"), Some(Rgb::new(0xbc, 0xbc, 0xbc)));
        assert_eq!(parse("rgbi:1.5/0/0"), None);
    }

    #[test]
    fn every_space_maps_its_white_to_white_and_its_black_to_black() {
        for white in [
            "CIEXYZ:0.95047/1/1.08883",
            "CIExyY:0.3127/0.3290/1",
            "CIEuvY:0.1978/0.4683/1",
            "CIELab:100/0/0",
            "CIELuv:100/0/0",
            "TekHVC:0/100/0",
        ] {
            assert_eq!(parse(white), WHITE, "{white}");
        }
        for black in [
            "CIEXYZ:0/0/0",
            "CIExyY:0.3127/0.3290/0",
            "CIEuvY:0.1978/0.4683/0",
            "CIELab:0/0/0",
            "CIELuv:0/0/0",
            "TekHVC:0/0/0",
        ] {
            assert_eq!(parse(black), BLACK, "{black}");
        }
    }

    #[test]
    fn mid_grey_and_primaries_land_where_srgb_puts_them() {
        // L* 50 is sRGB 119 (0x77) in every lightness-based space.
        let grey = Some(Rgb::new(0x77, 0x77, 0x77));
        assert_eq!(parse("CIELab:50/0/0"), grey);
        assert_eq!(parse("CIELuv:50/0/0"), grey);
        assert_eq!(parse("TekHVC:0/50/0"), grey);
        // sRGB red's XYZ and xy.
        assert_eq!(
            parse("CIEXYZ:0.4124/0.2126/0.0193"),
            Some(Rgb::new(255, 0, 0))
        );
        assert_eq!(parse("CIExyY:0.64/0.33/0.2126"), Some(Rgb::new(255, 0, 0)));
        // Out of gamut: channels clip instead of wrapping.
        assert_eq!(parse("CIEXYZ:1/1/1"), Some(Rgb::new(255, 249, 244)));
    }

    #[test]
    fn tekhvc_hue_turns_around_the_white_point() {
        let red = parse("TekHVC:0/50/60").unwrap();
        assert!(red.r > red.g && red.r > red.b, "{red:?}");
        let opposite = parse("TekHVC:180/50/30").unwrap();
        assert!(
            opposite.r < opposite.g && opposite.r < opposite.b,
            "{opposite:?}"
        );
    }

    #[test]
    fn malformed_specifications_are_refused() {
        for bad in [
            "CIEXYZ:",
            "CIEXYZ:1/1",
            "CIEXYZ:1/1/1/1",
            "CIEXYZ:a/b/c",
            "CIEXYZ:NaN/1/1",
            "CIEXYZ:inf/1/1",
            "CIELab:101/0/0",
            "CIELab:-1/0/0",
            "TekHVC:361/50/50",
            "CIExyY:2/0.3/1",
            "CIEXYZ",
            "XYZ:1/1/1",
        ] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }
}
