'use strict'

const { SCHEMA_VERSION, BreakdownAggregator } = require('./lib/aggregator')
const { renderTable, renderMarkdown, renderHtml, renderJson } = require('./lib/render')

module.exports = {
  SCHEMA_VERSION,
  BreakdownAggregator,
  renderTable,
  renderMarkdown,
  renderHtml,
  renderJson
}
