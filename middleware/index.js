'use strict'

const { nodebenchTrace } = require('./lib/trace')
const { nodebenchPrimary } = require('./lib/cluster-breakdown')
const { codes, NodebenchError } = require('./lib/errors')

module.exports = {
  nodebenchTrace,
  nodebenchPrimary,
  errorCodes: codes,
  NodebenchError
}
