// `databaseList`: the databases and their collections, shared by the home page (its table) and the
// sidebar (the names). The home page lists them afresh; any other page reuses the last list, so opening
// the app on a page costs one request to `/api` for the sidebar, and following links costs none.

(function () {
  'use strict'

  angular.module('mongoAdmin').factory('databaseList', ['api', function databaseListFactory (api) {
    const state = {
      /** The sidebar's database names; null until the first list arrives. */
      names: null,
      /** Lists the databases again. Resolves with `{ databases }`, as `GET /api` answers. */
      load () {
        const attempt = api.databases().then(function remember (list) {
          state.names = list.databases.map((database) => database.name)
          return list
        })
        // A failed list is not kept: the next page asks again.
        attempt.catch(function forget () { if (listing === attempt) listing = null })
        listing = attempt
        return attempt
      },
      /** The last list (or the one under way); lists them if none was asked for yet. */
      loaded () {
        return listing || state.load()
      }
    }
    let listing = null
    return state
  }])
})()
