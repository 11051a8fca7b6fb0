'use strict'

// Network conditions a page loads under (`--network`), through CDP's Network.emulateNetworkConditions:
// here the browser and the app share a machine (loopback), where the study used two. `lan` is a wired
// office network; `fast-3g` and `slow-3g` are Chrome DevTools' own presets (throughput in bytes per second,
// latency in ms, as DevTools and Puppeteer define them).

const bytesPerSecond = (bits) => bits / 8

const PRESETS = Object.freeze({
  none: null,
  lan: Object.freeze({
    latency: 1, downloadThroughput: bytesPerSecond(100e6), uploadThroughput: bytesPerSecond(100e6)
  }),
  'fast-3g': Object.freeze({
    latency: 150 * 3.75, downloadThroughput: bytesPerSecond(1.6e6) * 0.9, uploadThroughput: bytesPerSecond(750e3) * 0.9
  }),
  'slow-3g': Object.freeze({
    latency: 400 * 5, downloadThroughput: bytesPerSecond(500e3) * 0.8, uploadThroughput: bytesPerSecond(500e3) * 0.8
  })
})

module.exports = { NETWORK_PRESETS: PRESETS }
