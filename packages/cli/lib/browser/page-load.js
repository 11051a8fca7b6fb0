'use strict'

const { functionProfile } = require('./function-profile')
const { splitPageTime } = require('./time-split')

// One page load in Chromium, measured as Chrome DevTools would: in a fresh context (incognito-like: no cache,
// no storage), optionally primed by one unmeasured load of the same page (a warm HTTP cache), under the
// network conditions asked for. Through CDP and the page's own timing APIs:
// - DOMContentLoaded and `load` (Navigation Timing), and for a front end that says when it has shown the
//   page's data (`ready`), that moment too (polled once a frame: within ~16 ms);
// - the JS heap used after `load`, and again after forced garbage collections, until one frees nothing more
//   (Performance.getMetrics, HeapProfiler.collectGarbage): the second is what the page keeps;
// - script, layout and style-recalculation time (Performance.getMetrics' ScriptDuration, LayoutDuration,
//   RecalcStyleDuration, from the page's start);
// - requests and bytes transferred (Network.loadingFinished's encodedDataLength, headers included);
// - the app's time on each request (nodebench's Server-Timing `total`), which splits the page's time into
//   server, network and client, each moment counted once (time-split.js);
// - for an AngularJS page: scopes and watchers (walking the scope tree from $rootScope) and the mean time of
//   a digest cycle over them (ten $digest() calls on the loaded page);
// - with `profile`, the load's function profile (CDP Profiler, one sample each 100 µs).
// A failure (an error status, a page error, no `load` or no `ready` in time) is a failed load with why.

const SAMPLING_INTERVAL_US = 100
const DIGESTS = 10

/** In the page: AngularJS's figures, or null on a page without it. */
function angularStats (digests) {
  const angular = window.angular
  if (!angular || typeof angular.element !== 'function') return null
  const root = document.querySelector('[ng-app], [data-ng-app]') || document.documentElement
  const injector = angular.element(root).injector()
  if (!injector) return null
  const $rootScope = injector.get('$rootScope')
  let scopes = 0
  let watchers = 0
  const visit = (scope) => {
    for (let current = scope; current; current = current.$$nextSibling) {
      scopes++
      watchers += current.$$watchers ? current.$$watchers.length : 0
      if (current.$$childHead) visit(current.$$childHead)
    }
  }
  visit($rootScope)
  const times = []
  for (let i = 0; i < digests; i++) {
    const start = performance.now()
    $rootScope.$digest()
    times.push(performance.now() - start)
  }
  const digestMeanMs = times.reduce((a, b) => a + b, 0) / times.length
  return { version: angular.version.full, scopes, watchers, digestMeanMs }
}

/** In the page: navigation and resource timing, with each response's Server-Timing. */
function pageTiming () {
  const [navigation] = performance.getEntriesByType('navigation')
  const entries = [navigation, ...performance.getEntriesByType('resource')]
  return {
    domContentLoadedMs: navigation.domContentLoadedEventEnd,
    loadMs: navigation.loadEventEnd,
    requests: entries.map((entry) => ({
      name: entry.name,
      startMs: entry.startTime,
      firstByteMs: entry.responseStart,
      endMs: entry.responseEnd,
      serverMs: (entry.serverTiming || []).filter((metric) => metric.name === 'total').reduce((sum, metric) => sum + metric.duration, 0) || null
    }))
  }
}

function metricsOf ({ metrics }) {
  return Object.fromEntries(metrics.map(({ name, value }) => [name, value]))
}

const MAX_COLLECTIONS = 3

/**
 * The page's JS heap after forced full collections: collected again while the heap still shrinks by more than
 * 1%, at most MAX_COLLECTIONS times. One forced collection left the heap as it was after `load` in one load of
 * a test run on a loaded machine (0.5 MB more than the other runs of the page, all of it freed by the next):
 * what the page keeps is the heap once a collection no longer frees anything.
 */
async function heapAfterCollections (cdp) {
  let used = Infinity
  for (let i = 0; i < MAX_COLLECTIONS; i++) {
    await cdp.send('HeapProfiler.collectGarbage')
    const { JSHeapUsedSize } = metricsOf(await cdp.send('Performance.getMetrics'))
    if (JSHeapUsedSize >= used * 0.99) return Math.min(used, JSHeapUsedSize)
    used = JSHeapUsedSize
  }
  return used
}

/**
 * Loads `url` once and measures it. Resolves to the load's figures, or `{ failure }`; never rejects for the
 * page's fault.
 */
async function measureLoad (browser, { url, ready = null, cache = 'cold', network = null, profile = false, timeoutMs = 30_000 }) {
  const context = await browser.newContext()
  const errors = []
  try {
    if (cache === 'warm') {
      // The same page once before, unmeasured, in the same context: its HTTP cache is filled.
      const primer = await context.newPage()
      await primer.goto(url, { waitUntil: 'load', timeout: timeoutMs })
      if (ready !== null) await primer.waitForFunction(ready, null, { timeout: timeoutMs })
      await primer.close()
    }
    const page = await context.newPage()
    page.on('pageerror', (err) => errors.push(err.message))
    page.on('console', (message) => { if (message.type() === 'error') errors.push(message.text()) })
    const cdp = await context.newCDPSession(page)
    await cdp.send('Network.enable')
    await cdp.send('Performance.enable')
    if (network !== null) await cdp.send('Network.emulateNetworkConditions', { offline: false, ...network })
    let requests = 0
    let bytes = 0
    cdp.on('Network.requestWillBeSent', () => { requests++ })
    cdp.on('Network.loadingFinished', (event) => { bytes += event.encodedDataLength })
    if (profile) {
      await cdp.send('Profiler.enable')
      await cdp.send('Profiler.setSamplingInterval', { interval: SAMPLING_INTERVAL_US })
      await cdp.send('Profiler.start')
    }
    let response
    try {
      response = await page.goto(url, { waitUntil: 'load', timeout: timeoutMs })
    } catch (err) {
      return { failure: err.name === 'TimeoutError' ? `no load event within ${timeoutMs / 1000} s` : err.message.split('\n')[0] }
    }
    if (response === null || response.status() >= 400) return { failure: `the page answered ${response === null ? 'nothing' : response.status()}` }
    let readyMs = null
    if (ready !== null) {
      try {
        readyMs = await (await page.waitForFunction(`(${ready}) && performance.now()`, null, { timeout: timeoutMs })).jsonValue()
      } catch {
        return { failure: `the page was not ready (${ready}) within ${timeoutMs / 1000} s${errors.length ? `: ${errors[0]}` : ''}` }
      }
    }
    const cpuProfile = profile ? (await cdp.send('Profiler.stop')).profile : null
    const timing = await page.evaluate(pageTiming)
    const afterLoad = metricsOf(await cdp.send('Performance.getMetrics'))
    const heapAfterGc = await heapAfterCollections(cdp)
    const angular = await page.evaluate(angularStats, DIGESTS)
    if (errors.length > 0) return { failure: `the page reported an error: ${errors[0]}` }
    return {
      domContentLoadedMs: timing.domContentLoadedMs,
      loadMs: timing.loadMs,
      readyMs,
      heapUsedBytes: afterLoad.JSHeapUsedSize,
      heapUsedAfterGcBytes: heapAfterGc,
      scriptMs: afterLoad.ScriptDuration * 1000,
      layoutMs: afterLoad.LayoutDuration * 1000,
      styleMs: afterLoad.RecalcStyleDuration * 1000,
      requests,
      bytes,
      split: splitPageTime(timing.requests, readyMs ?? timing.loadMs),
      angular,
      functions: cpuProfile === null ? null : functionProfile(cpuProfile)
    }
  } catch (err) {
    return { failure: err.message.split('\n')[0] }
  } finally {
    await context.close().catch(() => {})
  }
}

module.exports = { measureLoad }
