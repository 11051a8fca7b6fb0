'use strict'

// The few statistics the CLI's figures use, written once: rounding for results.json, the mean and the median.

/** `value` rounded to `digits` decimals (results.json keeps three: microseconds of a millisecond figure). */
function round (value, digits = 3) {
  const scale = 10 ** digits
  return Math.round(value * scale) / scale
}

/** The arithmetic mean of `values` (numbers); NaN for none. */
function mean (values) {
  return values.reduce((sum, value) => sum + value, 0) / values.length
}

/** The median of the finite numbers among `values`; null when there is none. */
function median (values) {
  const sorted = values.filter((value) => typeof value === 'number' && Number.isFinite(value)).sort((a, b) => a - b)
  if (sorted.length === 0) return null
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

module.exports = { round, mean, median }
