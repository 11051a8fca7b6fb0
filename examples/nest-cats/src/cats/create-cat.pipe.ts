import { BadRequestException, Injectable, PipeTransform } from '@nestjs/common'
import type { Cat } from './cats.service.js'

/** Checks the body of a new cat: a name, a breed and a whole age. */
@Injectable()
export class CreateCatPipe implements PipeTransform<unknown, Omit<Cat, 'id'>> {
  transform (value: unknown): Omit<Cat, 'id'> {
    const body = value as Record<string, unknown> | null
    if (body === null || typeof body !== 'object') throw new BadRequestException('a cat is a JSON object')
    const { name, breed, age } = body
    if (typeof name !== 'string' || name.length < 2) throw new BadRequestException('name: at least 2 characters')
    if (typeof breed !== 'string' || breed === '') throw new BadRequestException('breed: required')
    if (typeof age !== 'number' || !Number.isInteger(age) || age < 0) throw new BadRequestException('age: a whole number')
    return { name, breed, age }
  }
}
