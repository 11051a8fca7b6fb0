'use strict'

const { SCHEMA_VERSION, BreakdownAggregator } = require('./lib/aggregator')
const { renderTable, renderMarkdown, renderHtml, renderJson } = require('./lib/render')
const { escapeHtml, escapeMarkdown } = require('./lib/escape')

module.exports = {
  SCHEMA_VERSION,
  BreakdownAggregator,
  renderTable,
  renderMarkdown,
  renderHtml,
  renderJson,
  escapeHtml,
  escapeMarkdown
}
