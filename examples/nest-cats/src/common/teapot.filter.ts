import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common'
import type { Response } from 'express'
import { TeapotError } from '../cats/teapot.error.js'

/** Answers a TeapotError with 418 and a body of its own. */
@Catch(TeapotError)
export class TeapotFilter implements ExceptionFilter {
  catch (error: TeapotError, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>()
    response.status(418).json({ statusCode: 418, error: 'I am a teapot', message: error.message })
  }
}
