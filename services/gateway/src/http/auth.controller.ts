import { Body, Controller, HttpCode, Inject, Post } from '@nestjs/common';
import bcrypt from 'bcryptjs';
import { AppError } from '@af/service-kit';
import { GATEWAY_DEPS, type GatewayDeps } from './deps.js';
import { LoginSchema, RegisterSchema } from './schemas.js';
import { parseBody } from './validation.js';

const BCRYPT_ROUNDS = 10;
// Compared against when the email is unknown, so both paths cost the same.
const DUMMY_HASH = bcrypt.hashSync('not-a-real-password', BCRYPT_ROUNDS);

@Controller('api/auth')
export class AuthController {
  constructor(@Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps) {}

  @Post('register')
  async register(@Body() body: unknown) {
    const input = parseBody(RegisterSchema, body);
    const hash = await bcrypt.hash(input.password, BCRYPT_ROUNDS);
    const user = await this.deps.users.create(input.email, input.name ?? null, hash);
    this.deps.kit.log.info({ userId: user.id }, 'user registered');
    return { user: { id: user.id, email: user.email, name: user.name, created_at: user.createdAt.toISOString() } };
  }

  @Post('login')
  @HttpCode(200)
  async login(@Body() body: unknown) {
    const input = parseBody(LoginSchema, body);
    const user = await this.deps.users.byEmail(input.email);
    const ok = await bcrypt.compare(input.password, user?.passwordHash ?? DUMMY_HASH);
    if (!user || !ok) throw new AppError('UNAUTHENTICATED', 'email or password is wrong');
    const { token, expiresIn } = await this.deps.tokens.issue(user.id);
    return { access_token: token, token_type: 'Bearer', expires_in: expiresIn, user: { id: user.id, email: user.email } };
  }
}
