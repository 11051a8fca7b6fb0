'use strict'

// What nodebench costs the app, judged pair by pair when bench interleaved the app's repetitions with the untraced
// app's (bench/baselines/pairs.js): the exact sign-flip chance on known cases, the pairs found only where the
// repetitions ran so, and the cost sentence for paired, unpaired and older results. The unpaired sentence's own
// cases: targets.test.js; a real interleaved run: bench-interleaved.test.js.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { signFlipChance, pairsOf, pairedCostOf } = require('../lib/bench/baselines/pairs')
const { targetsSummary } = require('../lib/bench/baselines/data')
const { costSentence } = require('../lib/bench/baselines/findings')
const { baselinesSection } = require('../lib/bench/baselines')

/** A measured cell of `target` whose repetitions served `rates` req/s, started at `starts` (ms) when given. */
function cellOf (target, rates, starts) {
  return {
    target,
    scenario: 'cat-read',
    format: 'json',
    processes: 1,
    topology: 'cluster',
    status: 'ok',
    connections: 20,
    requestsPerSec: { mean: rates.reduce((a, b) => a + b, 0) / rates.length, min: Math.min(...rates), max: Math.max(...rates) },
    latencyMs: { mean: 10 },
    requests: 2000 * rates.length,
    reps: rates.map((rate, i) => ({ requestsPerSec: rate, failures: {}, ...(starts ? { startedAtMs: starts[i] } : {}) }))
  }
}

// The order bench runs them in: app, untraced, untraced, app, app, ... (bench/matrix.js runInterleaved), 10 s each.
function interleavedStarts (n) {
  const app = []
  const untraced = []
  for (let k = 0; k < n; k++) {
    const first = 20_000 * k
    ;(k % 2 === 0 ? app : untraced).push(first)
    ;(k % 2 === 0 ? untraced : app).push(first + 10_000)
  }
  return { app, untraced }
}

// One server's repetitions all before the other's, as before bench interleaved them.
function sequentialStarts (n) {
  return { app: [...Array(n).keys()].map((k) => 10_000 * k), untraced: [...Array(n).keys()].map((k) => 10_000 * (n + k)) }
}

function sentence (appRates, untracedRates, starts) {
  const results = {
    workload: { scenarios: { 'cat-read': { label: 'cat read' } } },
    targets: [{ name: 'app', kind: 'app', traced: true }, { name: 'app-untraced', kind: 'app-untraced', traced: false }],
    cells: [cellOf('app', appRates, starts && starts.app)],
    targetCells: [cellOf('app-untraced', untracedRates, starts && starts.untraced)]
  }
  const summary = targetsSummary(results)
  const [group] = summary.groups
  return { text: costSentence(group, group.nodebenchCost), cost: group.nodebenchCost, summary }
}

// The measured nest-cats run of docs/baselines.md: the machine drifting by half, every pair the traced app slower.
const NEST_APP = [592, 836, 1050, 862]
const NEST_UNTRACED = [670, 1122, 1336, 1006]

test('the sign-flip chance: every one of the 2^n sign patterns counted, exact', () => {
  // All on one side: only the pattern itself and its mirror are as far from zero.
  assert.deepEqual(signFlipChance([196, 305, 204, 166]), { chance: 1 / 8, exact: true })
  assert.deepEqual(signFlipChance([-5, -1, -2, -8, -3, -4]), { chance: 1 / 32, exact: true })
  // Mixed signs: 3 +1 +1 -1 sums to 4; of the 16 patterns, the 2 summing to +-6 and the 6 to +-4 are as far.
  assert.deepEqual(signFlipChance([3, 1, 1, -1]), { chance: 8 / 16, exact: true })
  // 1 +1 +1 -1 sums to 2: all but the 6 patterns summing to 0.
  assert.deepEqual(signFlipChance([1, 1, 1, -1]), { chance: 10 / 16, exact: true })
  // A large difference decides alone: its sign fixed, the three small ones cannot bring the sum nearer zero.
  assert.deepEqual(signFlipChance([100, 1, -1, 1]), { chance: 1 / 2, exact: true })
  // Ties in the last bits of a sum count as ties.
  assert.equal(signFlipChance([0.1, 0.2, 0.3]).chance, 2 / 8)
  assert.equal(signFlipChance([0, 0, 0, 0]).chance, 1)
  // Beyond 20 pairs: a fixed sample of the patterns, the same each time.
  const many = Array.from({ length: 24 }, (_, k) => 10 + k)
  const sampled = signFlipChance(many)
  assert.equal(sampled.exact, false)
  assert.ok(sampled.chance > 0 && sampled.chance < 1e-3, String(sampled.chance))
  assert.deepEqual(signFlipChance(many), sampled)
})

test('pairs only where the repetitions ran in interleaved pairs, with a start and a throughput each', () => {
  const reps = (rates, starts) => rates.map((requestsPerSec, i) => ({ requestsPerSec, ...(starts ? { startedAtMs: starts[i] } : {}) }))
  const interleaved = interleavedStarts(4)
  const pairs = pairsOf(reps(NEST_APP, interleaved.app), reps(NEST_UNTRACED, interleaved.untraced))
  assert.deepEqual(pairs.map(({ traced, untraced }) => [traced.requestsPerSec, untraced.requestsPerSec]),
    NEST_APP.map((rate, k) => [rate, NEST_UNTRACED[k]]))
  const sequential = sequentialStarts(4)
  assert.equal(pairsOf(reps(NEST_APP, sequential.app), reps(NEST_UNTRACED, sequential.untraced)), null)
  // Results from before startedAtMs, a repetition missing on one side, one repetition each.
  assert.equal(pairsOf(reps(NEST_APP), reps(NEST_UNTRACED)), null)
  assert.equal(pairsOf(reps(NEST_APP.slice(0, 3), interleaved.app), reps(NEST_UNTRACED, interleaved.untraced)), null)
  assert.equal(pairsOf(reps([500], [0]), reps([600], [10])), null)

  // Each pair's added µs a request: 1e6 / 592 - 1e6 / 670 = 196.65; the median of four, the middle two's mean.
  const cost = pairedCostOf(reps(NEST_APP, interleaved.app), reps(NEST_UNTRACED, interleaved.untraced))
  assert.deepEqual(cost.addedUs, [196.652, 304.907, 203.878, 166.057])
  assert.equal(cost.median, 200.265)
  assert.deepEqual(cost.range, { min: 166.057, max: 304.907 })
  assert.equal(cost.chance, 1 / 8)
  assert.equal(cost.leastChance, 1 / 8)
})

test('the cost sentence judges interleaved repetitions pair by pair: nest-cats\'s drifting run gets its figure', () => {
  const paired = sentence(NEST_APP, NEST_UNTRACED, interleavedStarts(4))
  assert.equal(paired.text, 'cat read (json), 1 process: nodebench costs this app 200 µs a request at saturation (the median of 4 ' +
    'interleaved pairs, 166 to 305 µs), 20.70% of the untraced app\'s 968 µs (1 / requests/s: traced 835 req/s (592 to 1,050), ' +
    'untraced 1,034 (670 to 1,336)). Noise alone sets 4 interleaved pairs\' differences this far from zero one run in 8: ' +
    '--reps 6 or more tells it from the noise.')
  assert.equal(paired.cost.paired.pairs, 4)
  assert.match(baselinesSection.markdown(paired.summary), /- cat read \(json\), 1 process: nodebench costs this app 200 µs a request at saturation \(the median of 4 interleaved pairs/)

  // The same figures run one server after the other, or from before startedAtMs: two samples whose ranges overlap.
  const overlap = 'cat read (json), 1 process: nodebench\'s cost is within this run\'s noise: traced 835 req/s (592 to 1,050), ' +
    'untraced 1,034 (670 to 1,336); the repetitions overlap.'
  assert.equal(sentence(NEST_APP, NEST_UNTRACED, sequentialStarts(4)).text, overlap)
  assert.equal(sentence(NEST_APP, NEST_UNTRACED, null).text, overlap)
  assert.equal(sentence(NEST_APP, NEST_UNTRACED, null).cost.paired, null)
})

test('six pairs or more: a figure without asking for repetitions, or within the noise when the pairs disagree', () => {
  const app = [592, 836, 1050, 862, 700, 950]
  const untraced = [670, 1122, 1336, 1006, 760, 1040]
  const six = sentence(app, untraced, interleavedStarts(6))
  assert.equal(six.cost.chance, 1 / 32)
  assert.match(six.text, /nodebench costs this app \d+ µs a request at saturation \(the median of 6 interleaved pairs, [\d.]+ to [\d.]+ µs\), .*\. Noise alone sets 6 interleaved pairs' differences this far from zero one run in 32\.$/)

  // Two of six pairs the other way: no figure claimed, the pairs' spread and their chance said.
  const mixed = sentence([592, 1200, 1050, 862, 800, 950], [670, 1122, 1336, 1006, 760, 1040], interleavedStarts(6))
  assert.ok(mixed.cost.chance > 0.05, String(mixed.cost.chance))
  assert.match(mixed.text, /^cat read \(json\), 1 process: nodebench's cost is within this run's noise: the 6 interleaved pairs differ by -[\d.]+ to [\d.]+ µs a request \(1 \/ requests\/s: traced .*\)\. Noise alone sets 6 interleaved pairs' differences this far from zero one run in \d\.$/)

  // Four pairs that disagree: within the noise, and more repetitions asked for.
  const four = sentence([700, 836, 1050, 862], NEST_UNTRACED, interleavedStarts(4))
  assert.equal(four.cost.withinNoise, true)
  assert.match(four.text, /: nodebench's cost is within this run's noise: the 4 interleaved pairs differ by -[\d.]+ to [\d.]+ µs a request .*: --reps 6 or more tells it from the noise\.$/)

  // Every pair the traced app faster: nothing measurable, said with the pairs.
  const faster = sentence(NEST_UNTRACED.map((rate) => rate + 20), NEST_UNTRACED, interleavedStarts(4))
  assert.match(faster.text, /: nodebench cost nothing measurable here: traced .*; the 4 interleaved pairs differ by -\d+\.\d to -\d+\.\d µs a request\. Noise alone sets 4 interleaved pairs' differences this far from zero one run in 8: --reps 6 or more tells it from the noise\.$/)
})
