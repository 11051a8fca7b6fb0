'use strict'

const { nodebenchTrace } = require('./lib/trace')
const { codes, NodebenchError } = require('./lib/errors')

module.exports = {
  nodebenchTrace,
  errorCodes: codes,
  NodebenchError
}
