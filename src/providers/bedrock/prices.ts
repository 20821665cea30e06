/**
 * Bedrock prices that are not Anthropic's. Claude on Bedrock is priced from the Anthropic rows
 * (Bedrock's global endpoints list the same prices; regional endpoints of Claude 4.5 and later
 * add 10%, which these rows do not model). USD per million tokens, on-demand, us-east-1.
 */
const SOURCE = 'aws.amazon.com/bedrock/pricing (Amazon Nova, on-demand; cached reads 75% off, no write premium)';
const CHECKED = '2026-11-23';

function nova(model: string, input: number, output: number) {
  return {
    vendor: 'amazon',
    model,
    inputPerMTok: input,
    cacheWrite5mPerMTok: input,
    cacheWrite1hPerMTok: input,
    cacheReadPerMTok: input * 0.25,
    outputPerMTok: output,
    source: SOURCE,
    checked: CHECKED,
  };
}

export const BEDROCK_NOVA_PRICES = [
  nova('nova-micro', 0.035, 0.14),
  nova('nova-lite', 0.06, 0.24),
  nova('nova-pro', 0.8, 3.2),
  nova('nova-premier', 2.5, 12.5),
] as const;
