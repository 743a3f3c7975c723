//! Xlib's own square and cube roots and trigonometry (libX11 `src/xcms/cmsMath.c`,
//! `cmsTrig.c`), which Xcms uses instead of libm's. They are less exact (the arc
//! tangent stops at a relative error of 1e-6), and the gamut compression's bisection
//! can turn that difference into a different 8-bit channel, so tern computes with the
//! same approximations to answer what xterm answers.

use std::f64::consts::{FRAC_PI_2 as HALF_PI, FRAC_PI_4 as FOURTH_PI, PI, TAU as TWO_PI};

/// Below this |x| the sine is x and the cosine sqrt(1 - x²).
const X6_UNDERFLOWS: f64 = 4.209_340e-52;
/// The largest power of two C's `long`-based fraction trick uses.
const MAX_POW_TWO: f64 = 2_147_483_647.0 * (1u64 << 22) as f64;

/// Newton's method for the cube root, from a rough first guess.
pub(super) fn cube_root(a: f64) -> f64 {
    if a == 0.0 {
        return 0.0;
    }
    let abs = a.abs();
    let mut guess = if abs > 1.0 { abs / 8.0 } else { abs * 8.0 };
    loop {
        let delta = (guess - abs / (guess * guess)) / 3.0;
        guess -= delta;
        if delta.abs() < guess * f64::EPSILON || !delta.is_finite() {
            break;
        }
    }
    if a < 0.0 { -guess } else { guess }
}

/// Newton's method for the square root; 0 for a negative number.
pub(super) fn square_root(a: f64) -> f64 {
    if a <= 0.0 || !a.is_finite() {
        return 0.0;
    }
    let mut guess = if a > 1.0 { a / 4.0 } else { a * 4.0 };
    loop {
        let delta = (guess - a / guess) / 2.0;
        guess -= delta;
        if delta.abs() < guess * f64::EPSILON || !delta.is_finite() {
            break;
        }
    }
    guess
}

/// The signed fractional part, as `_XcmsModuloF`.
fn fraction(value: f64) -> f64 {
    let abs = value.abs();
    let whole = if abs >= MAX_POW_TWO {
        value
    } else {
        let mut ip = abs + MAX_POW_TWO;
        ip -= MAX_POW_TWO;
        if ip > abs {
            ip -= 1.0;
        }
        ip.abs()
    };
    value - whole
}

/// `x` brought into -π..=π.
fn wrap(x: f64) -> f64 {
    if !(-PI..=PI).contains(&x) {
        let x = fraction(x / TWO_PI) * TWO_PI;
        if x > PI {
            return x - TWO_PI;
        } else if x < -PI {
            return x + TWO_PI;
        }
        return x;
    }
    x
}

fn polynomial(coeffs: &[f64; 4], x: f64) -> f64 {
    coeffs[0] + x * (coeffs[1] + x * (coeffs[2] + x * coeffs[3]))
}

const COS_P: [f64; 4] = [
    0.129_053_946_590_373_74e7,
    -0.374_567_039_157_232_05e6,
    13_432.300_986_539_085,
    -0.112_314_508_233_409_33e3,
];
const COS_Q: [f64; 4] = [
    0.129_053_946_590_373_74e7,
    0.234_677_731_072_458_35e5,
    0.209_695_181_967_263_06e3,
    1.0,
];
const SIN_P: [f64; 4] = [
    0.206_643_433_369_958_58e7,
    -0.181_603_987_974_073_33e6,
    0.359_993_069_496_361_9e4,
    -0.201_074_832_945_886_16e2,
];
const SIN_Q: [f64; 4] = [
    2_631_065.910_264_77,
    0.392_702_427_746_49e5,
    0.278_119_194_810_838_44e3,
    1.0,
];

pub(super) fn cosine(x: f64) -> f64 {
    let x = wrap(x);
    if x > HALF_PI {
        -cosine(x - PI)
    } else if x < -HALF_PI {
        -cosine(x + PI)
    } else if x > FOURTH_PI {
        sine(HALF_PI - x)
    } else if x < -FOURTH_PI {
        sine(HALF_PI + x)
    } else if x.abs() < X6_UNDERFLOWS {
        square_root(1.0 - x * x)
    } else {
        let y = x / FOURTH_PI;
        let y2 = y * y;
        polynomial(&COS_P, y2) / polynomial(&COS_Q, y2)
    }
}

pub(super) fn sine(x: f64) -> f64 {
    let x = wrap(x);
    if x > HALF_PI {
        -sine(x - PI)
    } else if x < -HALF_PI {
        -sine(x + PI)
    } else if x > FOURTH_PI {
        cosine(HALF_PI - x)
    } else if x < -FOURTH_PI {
        -cosine(HALF_PI + x)
    } else if x.abs() < X6_UNDERFLOWS {
        x
    } else {
        let y = x / FOURTH_PI;
        let y2 = y * y;
        y * (polynomial(&SIN_P, y2) / polynomial(&SIN_Q, y2))
    }
}

/// The arc tangent by the arithmetic-geometric mean, stopped at a relative error of
/// 1e-6 (at most 10,000 rounds).
pub(super) fn arc_tangent(x: f64) -> f64 {
    const MAX_ERROR: f64 = 0.000_001;
    if x == 0.0 || !x.is_finite() {
        return 0.0;
    }
    let max_error = if x < 1.0 { x * MAX_ERROR } else { MAX_ERROR };
    let mut ai = square_root(1.0 / (1.0 + x * x));
    let mut bi = 1.0;
    let (mut a1, mut b1) = (0.0, 0.0);
    for _ in 0..10_000 {
        a1 = (ai + bi) / 2.0;
        b1 = square_root(a1 * bi);
        if a1 == b1 || (a1 - b1).abs() < max_error {
            break;
        }
        ai = a1;
        bi = b1;
    }
    let l = if a1 > b1 { b1 } else { a1 };
    x / (square_root(1.0 + x * x) * l)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_to_libm() {
        for x in [0.001_f64, 0.3, 0.7, 1.0, 2.5, -0.4, -3.0, 10.0] {
            assert!((square_root(x.abs()) - x.abs().sqrt()).abs() < 1e-12, "{x}");
            assert!((cube_root(x) - x.cbrt()).abs() < 1e-12, "{x}");
            assert!((sine(x) - x.sin()).abs() < 1e-9, "{x}");
            assert!((cosine(x) - x.cos()).abs() < 1e-9, "{x}");
            assert!((arc_tangent(x) - x.atan()).abs() < 1e-5, "{x}");
        }
    }
}
