//! Sample statistics for the benchmark tables: quantiles, spread and a bimodality flag.

use serde::Serialize;

/// Summary of one set of samples (in the unit the samples were taken in).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Summary {
    pub n: usize,
    pub p50: f64,
    pub p95: f64,
    pub p99: f64,
    pub max: f64,
    pub mean: f64,
    /// Two separated clusters of samples: a bug to find, not noise to average away.
    pub bimodal: bool,
}

pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let idx = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted[idx.min(sorted.len() - 1)]
}

pub fn summarize(samples: &[f64]) -> Summary {
    let mut s: Vec<f64> = samples.iter().copied().filter(|v| v.is_finite()).collect();
    s.sort_by(|a, b| a.total_cmp(b));
    let mean = if s.is_empty() {
        f64::NAN
    } else {
        s.iter().sum::<f64>() / s.len() as f64
    };
    Summary {
        n: s.len(),
        p50: quantile(&s, 0.5),
        p95: quantile(&s, 0.95),
        p99: quantile(&s, 0.99),
        max: s.last().copied().unwrap_or(f64::NAN),
        mean,
        bimodal: is_bimodal(&s),
    }
}

/// Looks for two peaks in a histogram of log-spaced buckets (quarter-octaves), each with
/// at least 10% of the samples, separated by a valley under a third of the smaller peak.
pub fn is_bimodal(sorted: &[f64]) -> bool {
    if sorted.len() < 20 {
        return false;
    }
    let lo = sorted[0].max(1e-9);
    let bucket = |v: f64| ((v.max(1e-9) / lo).log2() * 4.0).floor().max(0.0) as usize;
    let n_buckets = bucket(*sorted.last().unwrap_or(&lo)) + 1;
    if n_buckets > 400 {
        return false;
    }
    let mut hist = vec![0usize; n_buckets];
    for v in sorted {
        hist[bucket(*v)] += 1;
    }
    let min_peak = sorted.len() / 10;
    let peaks: Vec<usize> = (0..n_buckets)
        .filter(|&i| {
            let left = if i == 0 { 0 } else { hist[i - 1] };
            let right = hist.get(i + 1).copied().unwrap_or(0);
            hist[i] >= min_peak && hist[i] >= left && hist[i] > right
        })
        .collect();
    for (a_i, &a) in peaks.iter().enumerate() {
        for &b in &peaks[a_i + 1..] {
            let valley = hist[a..=b].iter().copied().min().unwrap_or(0);
            if b > a + 1 && valley * 3 < hist[a].min(hist[b]) {
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_of_a_known_set() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        let s = summarize(&v);
        assert_eq!((s.p50, s.p99, s.max), (51.0, 99.0, 100.0));
        assert!(!s.bimodal);
    }

    #[test]
    fn two_clusters_are_flagged_and_one_is_not() {
        let mut v: Vec<f64> = (0..200).map(|i| 30.0 + (i % 7) as f64).collect();
        assert!(!is_bimodal(&{
            let mut s = v.clone();
            s.sort_by(|a, b| a.total_cmp(b));
            s
        }));
        v.extend((0..200).map(|i| 3000.0 + (i % 11) as f64 * 10.0));
        v.sort_by(|a, b| a.total_cmp(b));
        assert!(is_bimodal(&v));
    }
}
