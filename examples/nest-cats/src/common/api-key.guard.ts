import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common'
import type { Request } from 'express'

/** Lets a request through when it carries the API key (`x-api-key: cats`); otherwise Nest answers 403. */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  canActivate (context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<Request>()
    return request.get('x-api-key') === 'cats'
  }
}
