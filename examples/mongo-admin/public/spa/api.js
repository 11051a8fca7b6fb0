// `api`: the JSON API at `/api` (lib/routes.js), one method per route. Each resolves with the response's
// body, or rejects with an Error carrying the API's own message (`{ "error": "..." }`) and the HTTP status.

(function () {
  'use strict'

  angular.module('mongoAdmin').factory('api', ['$http', '$q', function apiFactory ($http, $q) {
    const encode = encodeURIComponent

    function collectionUrl (database, collection) {
      return '/api/db/' + encode(database) + '/' + encode(collection)
    }

    function request (config) {
      return $http(config).then(
        function body (response) { return response.data },
        function failed (response) { return $q.reject(apiError(config, response)) }
      )
    }

    function apiError (config, response) {
      let message
      if (response.data && typeof response.data.error === 'string') message = response.data.error
      else if (response.status <= 0) message = `${config.method} ${config.url}: the server did not answer`
      else message = `${config.method} ${config.url}: ${response.status} ${response.statusText}`
      const error = new Error(message)
      error.status = response.status > 0 ? response.status : null
      return error
    }

    return {
      /** `{ databases: [{ name, collections: [name] }] }` */
      databases () {
        return request({ method: 'GET', url: '/api' })
      },
      /** `{ database, stats: { collections, documents, dataSize, storageSize }, collections: [{ name, count }] }` */
      database (database) {
        return request({ method: 'GET', url: '/api/db/' + encode(database) })
      },
      /** `{ database, collection, count, skip, limit, documents }`; `skip` and `limit` as the URL gave them. */
      collection (database, collection, { skip, limit } = {}) {
        return request({ method: 'GET', url: collectionUrl(database, collection), params: { skip, limit } })
      },
      /** `{ database, collection, document }` */
      document (database, collection, id) {
        return request({ method: 'GET', url: collectionUrl(database, collection) + '/' + encode(id) })
      },
      /** `{ _id }` of the new document. */
      addDocument (database, collection, document) {
        return request({ method: 'POST', url: collectionUrl(database, collection), data: document })
      },
      /** `{ deleted: 1, _id }` */
      deleteDocument (database, collection, id) {
        return request({ method: 'DELETE', url: collectionUrl(database, collection) + '/' + encode(id) })
      }
    }
  }])
})()
