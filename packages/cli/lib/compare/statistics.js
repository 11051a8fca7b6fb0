'use strict'

// The statistics of nodebench compare: is a figure's change between two sets of repetitions real, how large is
// it, and how sure. A handful of repetitions per side (5 to 10) rules out what assumes normal data or many
// samples (a t-test on request counts calls nearly any difference significant), so:
// - the test is Mann-Whitney U (Wilcoxon rank sum), two-sided, at alpha 0.05, with its exact permutation
//   distribution (midranks for ties, counted exactly), as benchstat does; the normal approximation only past
//   MAX_EXACT repetitions in all;
// - the change is the Hodges-Lehmann estimate (the median of every b/a ratio) with its 95% interval from
//   inverting the same test (Bauer 1972): distribution-free, at least 95% coverage at any sample size, and in
//   agreement with the test's verdict, where a bootstrap interval covers too little at 5 repetitions. Figures
//   that can be 0 or below are compared as differences instead of ratios.
// Written here because no well-kept package has them: simple-statistics gives the rank sum without its
// distribution, jstat and @stdlib/stats no Mann-Whitney test; each function is small and tested against
// enumeration (test/compare-statistics.test.js).

const { median } = require('../kernel/statistics')

const ALPHA = 0.05
// Up to this many values in all, the exact distribution (a table of ways to reach each rank sum: N x n x N²).
const MAX_EXACT = 60

/** Twice the midrank of each of `values` (integers: tied values share the mean of their ranks, 1-based). */
function doubledMidranks (values) {
  const order = values.map((value, index) => ({ value, index })).sort((x, y) => x.value - y.value)
  const ranks = new Array(values.length)
  for (let start = 0; start < order.length;) {
    let end = start
    while (end + 1 < order.length && order[end + 1].value === order[start].value) end++
    // Ranks start+1 .. end+1 share their mean; doubled, start + end + 2, an integer.
    for (let i = start; i <= end; i++) ranks[order[i].index] = start + end + 2
    start = end + 1
  }
  return ranks
}

/**
 * The ways to pick `size` of `ranks` (integers) by their sum: `ways[s]` subsets sum to s (counts as doubles:
 * exact up to 2^53, and only their ratios matter beyond).
 */
function rankSumWays (ranks, size) {
  const total = ranks.reduce((sum, rank) => sum + rank, 0)
  let table = Array.from({ length: size + 1 }, () => new Float64Array(total + 1))
  table[0][0] = 1
  for (const rank of ranks) {
    const next = table.map((row) => row.slice())
    for (let k = 1; k <= size; k++) {
      const from = table[k - 1]
      const to = next[k]
      for (let s = rank; s <= total; s++) if (from[s - rank] !== 0) to[s] += from[s - rank]
    }
    table = next
  }
  return table[size]
}

/**
 * Mann-Whitney U of `b` against `a`: `{ u, p }`, `u` the pairs where b's value is the larger (ties count a
 * half), `p` the two-sided p-value: the chance, were both sides one distribution, of a rank sum at least as far
 * from its mean as the one observed. 1 when either side is empty.
 */
function mannWhitney (a, b) {
  const n = b.length
  const m = a.length
  if (n === 0 || m === 0) return { u: null, p: 1 }
  const ranks = doubledMidranks([...a, ...b])
  const observed = ranks.slice(m).reduce((sum, rank) => sum + rank, 0)
  const u = observed / 2 - (n * (n + 1)) / 2
  const all = n + m
  const expected = n * (all + 1) // doubled
  const distance = Math.abs(observed - expected)
  if (all <= MAX_EXACT) {
    const ways = rankSumWays(ranks, n)
    let extreme = 0
    let total = 0
    for (let s = 0; s < ways.length; s++) {
      if (ways[s] === 0) continue
      total += ways[s]
      // Half a doubled rank is the smallest step a sum takes: anything within a quarter is the same sum.
      if (Math.abs(s - expected) >= distance - 0.25) extreme += ways[s]
    }
    return { u, p: Math.min(1, extreme / total) }
  }
  // The normal approximation with the variance corrected for ties, and a continuity correction.
  const counts = new Map()
  for (const rank of ranks) counts.set(rank, (counts.get(rank) ?? 0) + 1)
  let ties = 0
  for (const t of counts.values()) ties += t ** 3 - t
  const variance = (n * m / 12) * ((all + 1) - ties / (all * (all - 1)))
  if (variance <= 0) return { u, p: 1 }
  const z = Math.max(0, distance / 2 - 0.5) / Math.sqrt(variance)
  return { u, p: Math.min(1, 2 * (1 - normalCdf(z))) }
}

/** The standard normal distribution function (Abramowitz and Stegun 7.1.26 for erf: error below 1.5e-7). */
function normalCdf (z) {
  const x = Math.abs(z) / Math.SQRT2
  const t = 1 / (1 + 0.3275911 * x)
  const polynomial = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
  const erf = 1 - polynomial * Math.exp(-x * x)
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2
}

/**
 * How many of the sorted pairwise differences the 95% interval leaves out at each end, for `m` and `n` values
 * without ties: the largest k with P(U < k) <= alpha/2 under the exact distribution of U. 0: no interval this
 * confident exists (too few values).
 */
function intervalDepth (m, n, alpha = ALPHA) {
  const all = m + n
  if (all > MAX_EXACT) {
    // Normal approximation of U's quantile.
    const sd = Math.sqrt((m * n * (all + 1)) / 12)
    return Math.max(0, Math.floor(m * n / 2 - 1.959964 * sd))
  }
  const ways = rankSumWays(Array.from({ length: all }, (_, i) => i + 1), n)
  let total = 0
  for (const count of ways) total += count
  const minimum = (n * (n + 1)) / 2
  let below = 0
  let depth = 0
  for (let u = 0; u <= m * n; u++) {
    below += ways[u + minimum]
    if (below / total > alpha / 2) break
    depth = u + 1
  }
  return depth
}

/** Whether any outcome of `m` against `n` repetitions can be significant: the most extreme one's p-value. */
function canDecide (m, n, alpha = ALPHA) {
  return m > 0 && n > 0 && intervalDepth(m, n, alpha) > 0
}

/**
 * The Hodges-Lehmann shift of `y` over `x` (the median of every y - x) with its interval: `{ estimate, low,
 * high }`, `low`/`high` null when the sizes allow none.
 */
function hodgesLehmann (x, y, alpha = ALPHA) {
  const differences = []
  for (const xi of x) for (const yj of y) differences.push(yj - xi)
  differences.sort((p, q) => p - q)
  const depth = intervalDepth(x.length, y.length, alpha)
  return {
    estimate: median(differences),
    low: depth > 0 ? differences[depth - 1] : null,
    high: depth > 0 ? differences[differences.length - depth] : null
  }
}

/**
 * One figure's values on each side (a value per repetition) compared: `{ a: { median, values }, b, change,
 * p, significant }`. `change`: `{ scale: 'ratio', percent, low, high }` (b over a, in percent: +12.5 is 12.5%
 * more, its interval from `low` to `high`), from the logarithms of the values when all are above 0; else
 * `{ scale: 'difference', percent, low, high, difference: { estimate, low, high } }` (b less a in the figure's
 * unit, in percent of a's median when it is above 0, else null). `significant`: p below alpha, where the
 * sizes allow it (`decidable`: at least 4 repetitions a side, or 3 against 5).
 */
function compareValues (aValues, bValues, alpha = ALPHA) {
  const a = aValues.filter(Number.isFinite)
  const b = bValues.filter(Number.isFinite)
  const side = (values) => ({ median: values.length ? median(values) : null, values })
  const sides = { a: side(a), b: side(b) }
  if (a.length === 0 || b.length === 0) return { ...sides, change: null, p: null, significant: false, decidable: false }
  const { p } = mannWhitney(a, b)
  const decidable = canDecide(a.length, b.length, alpha)
  let change
  if ([...a, ...b].every((value) => value > 0)) {
    const shift = hodgesLehmann(a.map(Math.log), b.map(Math.log), alpha)
    const percent = (logRatio) => (logRatio === null ? null : (Math.exp(logRatio) - 1) * 100)
    change = { scale: 'ratio', percent: percent(shift.estimate), low: percent(shift.low), high: percent(shift.high) }
  } else {
    const shift = hodgesLehmann(a, b, alpha)
    const base = sides.a.median
    const percent = (difference) => (difference === null || !(base > 0) ? null : (difference / base) * 100)
    change = {
      scale: 'difference',
      percent: percent(shift.estimate),
      low: percent(shift.low),
      high: percent(shift.high),
      difference: { estimate: shift.estimate, low: shift.low, high: shift.high }
    }
  }
  return { ...sides, change, p, significant: decidable && p < alpha, decidable }
}

/**
 * The Wilcoxon signed-rank test of paired `differences` (b less a, one per pair; zeros dropped, as Wilcoxon
 * did): `{ p, n }`, `p` two-sided from the exact distribution of the rank sum of the positive differences
 * (midranks for ties of |d|), `n` the pairs that count. For paired values, as --measure instructions' windows
 * are (the same requests on both sides, at the same point of V8's warm-up), it compares each pair within
 * itself, so a drift shared by both sides (the warm-up going on) does not hide a change.
 */
function signedRank (differences) {
  const nonzero = differences.filter((d) => d !== 0)
  const n = nonzero.length
  if (n === 0) return { p: 1, n }
  const ranks = doubledMidranks(nonzero.map(Math.abs))
  const total = ranks.reduce((sum, rank) => sum + rank, 0)
  // Every sign pattern is as likely: the ways to reach each sum of the ranks given a + sign.
  let ways = new Float64Array(total + 1)
  ways[0] = 1
  for (const rank of ranks) {
    const next = ways.slice()
    for (let sum = rank; sum <= total; sum++) next[sum] += ways[sum - rank]
    ways = next
  }
  const observed = ranks.reduce((sum, rank, i) => sum + (nonzero[i] > 0 ? rank : 0), 0)
  const expected = total / 2
  const distance = Math.abs(observed - expected)
  let extreme = 0
  let all = 0
  for (let sum = 0; sum <= total; sum++) {
    all += ways[sum]
    if (Math.abs(sum - expected) >= distance - 0.25) extreme += ways[sum]
  }
  return { p: Math.min(1, extreme / all), n }
}

/**
 * The Hodges-Lehmann estimate of paired `differences` (the median of their Walsh averages, (d_i + d_j) / 2 for
 * i <= j) with its interval from inverting the signed-rank test (Tukey): `{ estimate, low, high }`.
 */
function walshInterval (differences, alpha = ALPHA) {
  const n = differences.length
  const averages = []
  for (let i = 0; i < n; i++) for (let j = i; j < n; j++) averages.push((differences[i] + differences[j]) / 2)
  averages.sort((x, y) => x - y)
  // The signed-rank statistic's distribution without ties: the largest depth k with P(T < k) <= alpha / 2.
  let ways = new Float64Array(n * (n + 1) / 2 + 1)
  ways[0] = 1
  for (let rank = 1; rank <= n; rank++) {
    const next = ways.slice()
    for (let sum = rank; sum < ways.length; sum++) next[sum] += ways[sum - rank]
    ways = next
  }
  const all = 2 ** n
  let below = 0
  let depth = 0
  for (let t = 0; t < ways.length; t++) {
    below += ways[t]
    if (below / all > alpha / 2) break
    depth = t + 1
  }
  return {
    estimate: median(averages),
    low: depth > 0 ? averages[depth - 1] : null,
    high: depth > 0 ? averages[averages.length - depth] : null
  }
}

/**
 * Paired values compared (pair i is `aValues[i]` and `bValues[i]`): as compareValues, with the signed-rank test
 * and its interval on each pair's log ratio (its difference when a value is not above 0).
 */
function comparePaired (aValues, bValues, alpha = ALPHA) {
  const pairs = aValues.map((a, i) => [a, bValues[i]]).filter(([a, b]) => Number.isFinite(a) && Number.isFinite(b))
  const side = (values) => ({ median: values.length ? median(values) : null, values })
  const sides = { a: side(pairs.map(([a]) => a)), b: side(pairs.map(([, b]) => b)) }
  if (pairs.length === 0) return { ...sides, change: null, p: null, significant: false, decidable: false }
  const ratios = pairs.every(([a, b]) => a > 0 && b > 0)
  const differences = pairs.map(([a, b]) => (ratios ? Math.log(b) - Math.log(a) : b - a))
  const { p, n } = signedRank(differences)
  // The most extreme outcome of n pairs has p = 2 / 2^n: 6 pairs at least for alpha 0.05.
  const decidable = n > 0 && 2 / 2 ** n <= alpha
  const shift = walshInterval(differences, alpha)
  let change
  if (ratios) {
    const percent = (logRatio) => (logRatio === null ? null : (Math.exp(logRatio) - 1) * 100)
    change = { scale: 'ratio', percent: percent(shift.estimate), low: percent(shift.low), high: percent(shift.high) }
  } else {
    const base = sides.a.median
    const percent = (difference) => (difference === null || !(base > 0) ? null : (difference / base) * 100)
    change = { scale: 'difference', percent: percent(shift.estimate), low: percent(shift.low), high: percent(shift.high), difference: shift }
  }
  return { ...sides, change, p, significant: decidable && p < alpha, decidable }
}

module.exports = {
  ALPHA,
  mannWhitney,
  hodgesLehmann,
  intervalDepth,
  canDecide,
  compareValues,
  signedRank,
  walshInterval,
  comparePaired,
  normalCdf
}
