'use strict'

const { HttpError } = require('./http-errors')

/**
 * The databases and collections the app knows, as Mongo-Express keeps them: listed once, looked up in
 * memory on every request, and listed again only when a name is not found (a database or collection
 * created since). So the `database` and `collection` param middleware are cheap and the `document` one,
 * which reads from the database, owns a document read's time, as in the study.
 */
class DatabaseCatalog {
  constructor (client, { hiddenDatabases = ['admin', 'config', 'local'] } = {}) {
    this.client = client
    this.hiddenDatabases = new Set(hiddenDatabases)
    this.databases = null // name -> Set of collection names, or null until listed
    this.refreshing = null
  }

  /** Lists databases and their collections again (one refresh at a time; concurrent callers share it). */
  refresh () {
    if (this.refreshing === null) {
      this.refreshing = this.listAll().then((databases) => {
        this.databases = databases
      }).finally(() => {
        this.refreshing = null
      })
    }
    return this.refreshing
  }

  async listAll () {
    const { databases } = await this.client.db('admin').admin().listDatabases({ nameOnly: true })
    const result = new Map()
    for (const { name } of databases) {
      if (this.hiddenDatabases.has(name)) continue
      const collections = await this.client.db(name).listCollections({}, { nameOnly: true }).toArray()
      result.set(name, new Set(collections.map((c) => c.name).filter((c) => !c.startsWith('system.'))))
    }
    return result
  }

  /** Database names for navigation, without a round trip (empty until the first listing). */
  databaseNames () {
    return this.databases === null ? [] : Array.from(this.databases.keys()).sort()
  }

  collectionNames (database) {
    const collections = this.databases === null ? undefined : this.databases.get(database)
    return collections === undefined ? [] : Array.from(collections).sort()
  }

  async hasDatabase (name) {
    if (this.databases !== null && this.databases.has(name)) return true
    await this.refresh()
    return this.databases.has(name)
  }

  async hasCollection (database, name) {
    const known = this.databases !== null && this.databases.get(database)
    if (known && known.has(name)) return true
    await this.refresh()
    const collections = this.databases.get(database)
    return collections !== undefined && collections.has(name)
  }

  /** Throws a 404 HttpError naming what is missing. */
  async requireDatabase (name) {
    if (!(await this.hasDatabase(name))) throw new HttpError(404, `Database "${name}" not found`)
  }

  async requireCollection (database, name) {
    if (!(await this.hasCollection(database, name))) {
      throw new HttpError(404, `Collection "${name}" not found in database "${database}"`)
    }
  }
}

module.exports = { DatabaseCatalog }
