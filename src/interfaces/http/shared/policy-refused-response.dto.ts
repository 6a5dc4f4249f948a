import { ApiProperty } from '@nestjs/swagger';
import { ErrorResponseDto } from './error-response.dto';

/** One thing wrong with a policy (PolicyProblem): where and why. */
export class PolicyProblemDto {
  @ApiProperty({
    type: Number,
    nullable: true,
    example: 3,
    description: "The rule's position in `rules`, from 1; null for the policy itself",
  })
  position!: number | null;

  @ApiProperty({ required: false, example: 'delete-cap', description: "The rule's name, when it has a valid one" })
  rule?: string;

  @ApiProperty({ example: 'rules[3].limit.max', description: 'The field, from the top of the policy' })
  field!: string;

  @ApiProperty({ example: 'must be a whole number from 1 to 1000000' })
  message!: string;
}

/**
 * The 400 of a policy that cannot be used (PolicyRefusedError), on every route that takes
 * one: the error body with every problem. The error filter writes it.
 */
export class PolicyRefusedResponseDto extends ErrorResponseDto {
  @ApiProperty({ type: [PolicyProblemDto], description: 'Every problem found, in the order of the rules' })
  problems!: PolicyProblemDto[];
}

/** How a route that takes a policy documents its refusal: `@ApiResponse(POLICY_REFUSED_RESPONSE)`. */
export const POLICY_REFUSED_RESPONSE = {
  status: 400,
  type: PolicyRefusedResponseDto,
  description:
    'POLICY.INVALID: the policy cannot be used, and `problems` lists every reason (an unknown tool, a malformed glob, a rule ' +
    'that can never match, conflicting rules, an email that is no account’s…); or VALIDATION.FAILED for the other fields',
} as const;
