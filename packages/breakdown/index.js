'use strict'

const { SCHEMA_VERSION, BreakdownAggregator, CONTAINER_KINDS, isContainer, round, dependencySnapshots } = require('./lib/aggregator')
const { renderTable, renderMarkdown, renderHtml, renderJson } = require('./lib/render')
const { escapeHtml, escapeMarkdown } = require('./lib/escape')
const { attributeCalls } = require('./lib/attribution')
const { htmlPage, section: htmlSection } = require('./lib/page')
const { breakdownMetrics, REQUEST_METRIC, SEGMENT_METRIC, DEPENDENCY_METRIC, ATTRIBUTES, UNATTRIBUTED, BOUNDARIES_SECONDS } = require('./lib/breakdown-metrics')

module.exports = {
  SCHEMA_VERSION,
  BreakdownAggregator,
  CONTAINER_KINDS,
  isContainer,
  roundMs: round,
  attributeCalls,
  dependencySnapshots,
  renderTable,
  renderMarkdown,
  renderHtml,
  renderJson,
  escapeHtml,
  escapeMarkdown,
  htmlPage,
  htmlSection,
  breakdownMetrics,
  REQUEST_METRIC,
  SEGMENT_METRIC,
  DEPENDENCY_METRIC,
  METRIC_ATTRIBUTES: ATTRIBUTES,
  UNATTRIBUTED,
  BOUNDARIES_SECONDS
}
