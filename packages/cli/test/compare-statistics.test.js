'use strict'

// The statistics of nodebench compare (lib/compare/statistics.js), against what they mean: the exact tests'
// p-values against enumeration of every relabelling (ties included), the intervals against R's wilcox.test.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const {
  mannWhitney, hodgesLehmann, intervalDepth, canDecide, compareValues, signedRank, walshInterval, comparePaired, normalCdf
} = require('../lib/compare/statistics')

/** Every way to choose `size` of `items`. */
function * choose (items, size, start = 0, picked = []) {
  if (picked.length === size) {
    yield picked
    return
  }
  for (let i = start; i < items.length; i++) yield * choose(items, size, i + 1, [...picked, i])
}

/** The two-sided p-value of the rank sum by brute force: every split of the pooled values, midranks for ties. */
function enumeratedRankSumP (a, b) {
  const pooled = [...a, ...b]
  const rankOf = (value) => {
    const below = pooled.filter((v) => v < value).length
    const equal = pooled.filter((v) => v === value).length
    return below + (equal + 1) / 2
  }
  const ranks = pooled.map(rankOf)
  const sumOf = (indexes) => indexes.reduce((sum, i) => sum + ranks[i], 0)
  const expected = (b.length * (pooled.length + 1)) / 2
  const observed = sumOf(b.map((_, i) => a.length + i))
  let extreme = 0
  let total = 0
  for (const indexes of choose(pooled, b.length)) {
    total += 1
    if (Math.abs(sumOf(indexes) - expected) >= Math.abs(observed - expected) - 1e-9) extreme += 1
  }
  return extreme / total
}

test('Mann-Whitney U: the exact p-value is the share of relabellings at least as extreme, with ties too', () => {
  // R: wilcox.test(1:5, 6:10)$p.value == 0.007937 (2 / choose(10, 5)).
  assert.equal(mannWhitney([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]).p, 2 / 252)
  assert.equal(mannWhitney([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]).u, 25)
  const cases = [
    [[1, 2, 2, 3], [2, 3, 4, 5]],
    [[10.1, 10.4, 9.8, 10.0, 10.2], [10.3, 10.6, 10.5, 9.9, 10.7]],
    [[5, 5, 5, 6, 7], [5, 6, 6, 8, 8, 9]],
    [[3, 1, 4, 1, 5, 9], [2, 6, 5, 3, 5]],
    [[1, 1, 1], [1, 1, 1]]
  ]
  for (const [a, b] of cases) {
    const { p } = mannWhitney(a, b)
    assert.ok(Math.abs(p - enumeratedRankSumP(a, b)) < 1e-12, `${a} vs ${b}: ${p} vs ${enumeratedRankSumP(a, b)}`)
  }
  assert.equal(mannWhitney([1, 1, 1], [1, 1, 1]).p, 1, 'nothing differs: p is 1')
  assert.equal(mannWhitney([], [1, 2]).p, 1)
})

test('Mann-Whitney U: past the exact table, the normal approximation agrees with the exact distribution', () => {
  const a = Array.from({ length: 31 }, (_, i) => i * 1.1)
  const b = a.map((value) => value + 4)
  const approximate = mannWhitney(a, b).p
  // Exact at 30 a side (60 in all), approximate at 31: close to each other.
  const exact = mannWhitney(a.slice(0, 30), b.slice(0, 30)).p
  assert.ok(Math.abs(approximate - exact) < 0.05, `${approximate} against ${exact}`)
  assert.ok(Math.abs(normalCdf(1.959964) - 0.975) < 1e-6)
  assert.ok(Math.abs(normalCdf(-1) - 0.158655) < 1e-6)
})

test('Hodges-Lehmann: the estimate and interval of R\'s wilcox.test(conf.int = TRUE), and sizes too small for any', () => {
  // R: wilcox.test(6:10, 1:5, conf.int = TRUE): estimate 5, interval [2, 8].
  assert.deepEqual(hodgesLehmann([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]), { estimate: 5, low: 2, high: 8 })
  // R: qwilcox(0.025, 10, 10) = 24 -> the 24th smallest and largest of the 100 differences.
  assert.equal(intervalDepth(10, 10), 24)
  assert.equal(intervalDepth(5, 5), 3)
  assert.deepEqual([intervalDepth(3, 3), intervalDepth(3, 4), intervalDepth(4, 4), intervalDepth(3, 5)], [0, 0, 1, 1])
  assert.deepEqual([canDecide(3, 3), canDecide(4, 4), canDecide(1, 20), canDecide(2, 10)], [false, true, false, true])
  const none = hodgesLehmann([1, 2, 3], [4, 5, 6])
  assert.deepEqual([none.low, none.high], [null, null])
})

test('a figure compared: ratios of positive values in percent, differences otherwise, significance only where decidable', () => {
  const slower = compareValues([100, 101, 99, 102, 98], [110, 111, 109, 108, 112])
  assert.equal(slower.change.scale, 'ratio')
  assert.ok(Math.abs(slower.change.percent - 10) < 1e-9)
  assert.ok(slower.change.low > 0 && slower.change.high > slower.change.percent)
  assert.equal(slower.significant, true)
  const same = compareValues([100, 101, 99, 102, 98], [100, 101, 99, 102, 98])
  assert.equal(same.significant, false)
  assert.equal(same.p, 1)
  assert.ok(same.change.low < 0 && same.change.high > 0, 'the interval of no change holds 0')
  const withZero = compareValues([0, 1, 2, 1], [3, 4, 5, 4])
  assert.equal(withZero.change.scale, 'difference')
  assert.equal(withZero.change.difference.estimate, 3)
  assert.equal(withZero.change.percent, 300)
  const few = compareValues([1, 2, 3], [7, 8, 9])
  assert.deepEqual([few.decidable, few.significant], [false, false], '3 against 3 cannot reach p < 0.05')
})

test('signed-rank: the exact p-value over every sign pattern, and Tukey\'s interval of R\'s wilcox.test', () => {
  // R: wilcox.test(c(-1, 2, -3, 4, 5, 6, 7, 8))$p.value == 0.05469.
  assert.ok(Math.abs(signedRank([-1, 2, -3, 4, 5, 6, 7, 8]).p - 0.0546875) < 1e-12)
  assert.equal(signedRank([1, 2, 3, 4, 5, 6]).p, 2 / 64)
  assert.equal(signedRank([0, 0]).p, 1)
  // Ties of |d| and a zero: against enumeration of the 2^n signs.
  const differences = [0.5, -0.5, 1, 2, 2, -3, 4, 0]
  const nonzero = differences.filter((d) => d !== 0)
  const ranks = nonzero.map((d) => {
    const below = nonzero.filter((v) => Math.abs(v) < Math.abs(d)).length
    const equal = nonzero.filter((v) => Math.abs(v) === Math.abs(d)).length
    return below + (equal + 1) / 2
  })
  const total = ranks.reduce((s, r) => s + r, 0)
  const observed = ranks.reduce((s, r, i) => s + (nonzero[i] > 0 ? r : 0), 0)
  let extreme = 0
  for (let signs = 0; signs < 2 ** nonzero.length; signs++) {
    const sum = ranks.reduce((s, r, i) => s + ((signs >> i) & 1 ? r : 0), 0)
    if (Math.abs(sum - total / 2) >= Math.abs(observed - total / 2) - 1e-9) extreme += 1
  }
  assert.ok(Math.abs(signedRank(differences).p - extreme / 2 ** nonzero.length) < 1e-12)
  // R: wilcox.test(1:6, conf.int = TRUE): estimate 3.5, interval [1, 6].
  assert.deepEqual(walshInterval([1, 2, 3, 4, 5, 6]), { estimate: 3.5, low: 1, high: 6 })
})

test('paired values: a drift both sides share does not hide a change of each pair', () => {
  // The warm-up goes on: both sides fall by 30% over the windows, b stays 2% above a in each.
  const a = [1000, 950, 900, 850, 800, 750, 700]
  const b = a.map((value) => value * 1.02)
  const unpaired = compareValues(a, b)
  const paired = comparePaired(a, b)
  assert.equal(unpaired.significant, false, 'between the windows, the drift swamps 2%')
  assert.equal(paired.significant, true)
  assert.ok(Math.abs(paired.change.percent - 2) < 1e-9)
  assert.equal(comparePaired(a.slice(0, 5), b.slice(0, 5)).decidable, false, '5 pairs cannot reach p < 0.05')
})
