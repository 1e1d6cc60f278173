// What the agent's own elicitation callback answers: the rule of tests/compat/harness/answers.py
// (the schema's default where there is one, otherwise the first valid value of the field's kind).

export const SAMPLING_REPLY = 'compat-sampled-reply';
export const ROOT_URI = 'file:///compat/root';

const FORMAT_SAMPLES = {
  email: 'person@example.com',
  uri: 'https://example.com/compat',
  date: '2026-12-01',
  'date-time': '2026-12-01T10:00:00Z',
};

function fillField(prop) {
  if ('default' in prop) return prop.default;
  switch (prop.type) {
    case 'string': {
      if (prop.enum?.length) return prop.enum[0];
      if (prop.oneOf?.length) return prop.oneOf[0].const;
      let text = FORMAT_SAMPLES[prop.format] ?? 'compat';
      text = text.padEnd(prop.minLength ?? 0, 'x');
      return prop.maxLength !== undefined ? text.slice(0, prop.maxLength) : text;
    }
    case 'number':
    case 'integer': {
      const max = prop.maximum ?? 1;
      const value = prop.minimum ?? (max < 1 ? max : 1);
      return prop.type === 'integer' ? Math.trunc(value) : value;
    }
    case 'boolean':
      return true;
    case 'array': {
      const items = prop.items ?? {};
      const options = items.enum ?? (items.anyOf ?? []).map((choice) => choice.const);
      return options.slice(0, Math.max(prop.minItems ?? 1, 1));
    }
    default:
      return null;
  }
}

/** Content for an accepted form: every property answered. */
export function fill(schema) {
  return Object.fromEntries(Object.entries(schema?.properties ?? {}).map(([name, prop]) => [name, fillField(prop)]));
}
