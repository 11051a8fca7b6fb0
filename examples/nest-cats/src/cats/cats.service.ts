import { Injectable, NotFoundException } from '@nestjs/common'
import { createHash } from 'node:crypto'

export interface Cat {
  id: number
  name: string
  breed: string
  age: number
}

export interface CatPortrait extends Cat {
  portrait: string
}

const BREEDS = ['Siamese', 'Maine Coon', 'Persian', 'Bengal', 'Sphynx', 'Ragdoll']

/** The cats, kept in memory; a portrait is computed (CPU work the breakdown puts on the controller's service). */
@Injectable()
export class CatsService {
  private readonly cats = new Map<number, Cat>()
  private nextId = 1

  constructor () {
    for (let i = 0; i < 100; i++) {
      this.create({ name: `cat-${i + 1}`, breed: BREEDS[i % BREEDS.length], age: 1 + (i % 15) })
    }
  }

  findAll (limit: number): Cat[] {
    return Array.from(this.cats.values()).slice(0, limit)
  }

  findOne (id: number): CatPortrait {
    const cat = this.cats.get(id)
    if (cat === undefined) throw new NotFoundException(`cat ${id} does not exist`)
    return { ...cat, portrait: portraitOf(cat) }
  }

  create (fields: Omit<Cat, 'id'>): Cat {
    const cat = { id: this.nextId++, ...fields }
    this.cats.set(cat.id, cat)
    return cat
  }
}

/** A digest folded 200 times: a fixed amount of CPU per cat read. */
function portraitOf (cat: Cat): string {
  let digest = `${cat.id}:${cat.name}:${cat.breed}`
  for (let round = 0; round < 200; round++) digest = createHash('sha256').update(digest).digest('hex')
  return digest.slice(0, 16)
}
