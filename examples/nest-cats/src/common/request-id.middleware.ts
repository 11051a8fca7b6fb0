import { Injectable, NestMiddleware } from '@nestjs/common'
import type { NextFunction, Request, Response } from 'express'
import { randomUUID } from 'node:crypto'

/** Gives every request an id (from `x-request-id`, or a new one) and echoes it on the response. */
@Injectable()
export class RequestIdMiddleware implements NestMiddleware {
  use (req: Request, res: Response, next: NextFunction): void {
    const id = req.get('x-request-id') ?? randomUUID()
    res.setHeader('x-request-id', id)
    next()
  }
}
