'use strict'

const { runAutocannon } = require('../kernel/load')
const { fetchBreakdown, measuredOperation, droppedInWindow } = require('../kernel/breakdown-source')
const { requestsOf, runHook } = require('../kernel/workload')
const { combinationsOf } = require('../kernel/sweep')
const { LoadObserver } = require('../kernel/load-observer')
const { probeCell, checkWarmup } = require('../kernel/repetition')

// The load a profile is taken under, in a running app: `warmupSec` of it first (V8 compiles the hot code,
// the first requests name the layers, caches fill), then the window of `duration` seconds that counts. The
// window opens once the load runs at full speed and closes while it still does (it goes on RAMP_SEC past
// both edges), so it holds neither a start nor an end of a load. At its edges: the app's breakdown is reset
// and read (when the app serves one), and `onOpen` / `onClose` run (the v8 profiler starts and stops there).

const RAMP_SEC = 1

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Resolves to `{ load: { requests, errors, unexpectedStatus }, window: { startMs, endMs, breakdownMs }, breakdown,
 * operation, requestsPerSec, breakdownFailure }`: `breakdownMs` how long the breakdown's window was (from the
 * app's reset to its read, null without a breakdown); `breakdown` (null when the app serves none, and
 * `breakdownFailure` says why) and its measured `operation` are the window's; `requestsPerSec` is the
 * window's throughput, the app's count of the operation over the window when there is a breakdown, else the
 * load generator's answers in the window's seconds.
 */
async function loadWindow ({
  base, env = process.env, workload, scenario, format, values = {}, warmupSec, duration, connections,
  onOpen = async () => {}, onClose = async () => {}, log = () => {}
}) {
  const definition = workload.scenarios[scenario]
  const context = { base, env, log, values }
  const setupValues = await runHook(definition.setup, `scenario '${scenario}' setup`, workload, context)
  // A swept scenario (kernel/sweep.js) is profiled at the first of its quick values.
  const [firstValues] = combinationsOf(definition.vary, { quick: true })
  const sent = requestsOf(definition, format, { ...firstValues, ...values, ...setupValues })
  await probeCell(base, sent)
  if (warmupSec > 0) checkWarmup(await runAutocannon(base, sent, { connections, duration: warmupSec, phase: 'warm-up' }), sent)
  const observer = new LoadObserver({ expectedStatus: sent.status, timeline: true })
  const running = runAutocannon(base, sent, { connections, duration: duration + 2 * RAMP_SEC, observer, phase: 'profiled load' })
  let breakdownFailure = null
  const breakdownOf = async (method) => {
    if (breakdownFailure !== null) return null
    try {
      return await fetchBreakdown(base, method)
    } catch (err) {
      breakdownFailure = err.message
      return null
    }
  }
  await sleep(RAMP_SEC * 1000)
  // The breakdown's window runs from the app's reset to its read: each taken halfway through its round trip.
  const resetSentMs = Date.now()
  const reset = await breakdownOf('DELETE')
  const resetMs = (resetSentMs + Date.now()) / 2
  await onOpen()
  const startMs = Date.now()
  await sleep(duration * 1000)
  const endMs = Date.now()
  await onClose()
  const readSentMs = Date.now()
  const read = await breakdownOf('GET')
  const breakdownMs = reset === null || read === null ? null : (readSentMs + Date.now()) / 2 - resetMs
  const breakdown = droppedInWindow(reset, read)
  const result = await running
  const operation = breakdown === null ? null : measuredOperation(breakdown, sent.method)
  const same = (o) => o.method === operation.method && o.route === operation.route && o.format === operation.format
  const measured = operation === null ? null : breakdown.operations.find(same)
  const windowSec = (endMs - startMs) / 1000
  // Without a breakdown: the answers of the whole seconds inside the window, from the load generator.
  const firstSecond = Math.ceil((startMs - result.startedAtMs) / 1000)
  const lastSecond = Math.floor((endMs - result.startedAtMs) / 1000)
  const inside = observer.summary().timeline.filter((s) => s.second >= firstSecond && s.second + 1 <= lastSecond)
  const requestsPerSec = measured
    ? measured.count / windowSec
    : inside.length > 0
      ? inside.reduce((sum, s) => sum + s.requests, 0) / inside.length
      : null
  return {
    load: {
      requests: result.requests.total, errors: result.errors, unexpectedStatus: result.answers.unexpected
    },
    window: { startMs, endMs, breakdownMs },
    breakdown,
    breakdownFailure,
    operation: measured,
    requestsPerSec
  }
}

module.exports = { loadWindow, RAMP_SEC }
