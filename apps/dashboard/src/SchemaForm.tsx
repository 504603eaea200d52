// A form built from an OpenAPI schema: one labelled control per member (enums as choices, numbers with their
// range, nested objects as groups), the API's own descriptions as hints, and messages per dotted path.
import { useId, useState } from 'react';
import { refName, resolve, type Schema } from './schema';

type Value = unknown;

interface Props {
  schema: Schema;
  value: Value;
  onChange: (value: Value) => void;
  path: string;
  label: string;
  errors: Record<string, string[]>;
  /** Nested objects start folded (the operations are many); the top level is open. */
  depth?: number;
}

function Messages({ id, messages }: { id: string; messages?: string[] }) {
  if (!messages?.length) return null;
  return (
    <p className="field-error" id={id} role="alert">
      {messages.join('; ')}
    </p>
  );
}

function Hint({ id, schema }: { id: string; schema: Schema }) {
  const range =
    schema.minimum !== undefined || schema.maximum !== undefined
      ? ` Range: ${schema.minimum ?? '…'} to ${schema.maximum ?? '…'}.`
      : '';
  if (!schema.description && !range) return null;
  return (
    <p className="hint" id={id}>
      {schema.description}
      {range}
    </p>
  );
}

export function SchemaForm({ schema: raw, value, onChange, path, label, errors, depth = 0 }: Props) {
  const schema = resolve(raw);
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const messages = errors[path];
  const describedBy = [schema.description ? hintId : '', messages ? errorId : ''].filter(Boolean).join(' ');
  const invalid = messages ? true : undefined;

  if (schema.oneOf) return <Variants {...{ schema, value, onChange, path, label, errors, depth }} />;

  if (schema.properties) {
    const object = (value && typeof value === 'object' ? value : {}) as Record<string, Value>;
    const set = (name: string, member: Value) => onChange({ ...object, [name]: member });
    const body = (
      <>
        <Hint id={hintId} schema={schema} />
        <Messages id={errorId} messages={messages} />
        {Object.entries(schema.properties).map(([name, member]) => (
          <SchemaForm
            key={name}
            schema={member}
            value={object[name]}
            onChange={(v) => set(name, v)}
            path={path ? `${path}.${name}` : name}
            label={name}
            errors={errors}
            depth={depth + 1}
          />
        ))}
      </>
    );
    if (depth === 0) return <div className="schema-form">{body}</div>;
    const open = Object.keys(errors).some((p) => p.startsWith(`${path}.`)) || value !== undefined;
    return (
      <details className="group" open={open || undefined}>
        <summary>
          {label}
          {value !== undefined ? <span className="badge">set</span> : null}
        </summary>
        <fieldset>
          <legend className="visually-hidden">{label}</legend>
          {body}
        </fieldset>
      </details>
    );
  }

  let control;
  if (schema.enum) {
    control = (
      <select
        id={id}
        value={value === undefined ? '' : String(value)}
        aria-describedby={describedBy || undefined}
        aria-invalid={invalid}
        onChange={(e) => {
          const chosen = schema.enum!.find((option) => String(option) === e.target.value);
          onChange(chosen);
        }}
      >
        <option value="">(not set)</option>
        {schema.enum.map((option) => (
          <option key={String(option)} value={String(option)}>
            {String(option)}
          </option>
        ))}
      </select>
    );
  } else if (schema.type === 'boolean') {
    control = (
      <select
        id={id}
        value={value === undefined ? '' : String(value)}
        aria-describedby={describedBy || undefined}
        aria-invalid={invalid}
        onChange={(e) => onChange(e.target.value === '' ? undefined : e.target.value === 'true')}
      >
        <option value="">(not set)</option>
        <option value="true">yes</option>
        <option value="false">no</option>
      </select>
    );
  } else if (schema.type === 'number' || schema.type === 'integer') {
    control = (
      <input
        id={id}
        type="number"
        inputMode="decimal"
        min={schema.minimum}
        max={schema.maximum}
        step={schema.type === 'integer' ? 1 : 'any'}
        value={value === undefined ? '' : String(value)}
        aria-describedby={describedBy || undefined}
        aria-invalid={invalid}
        onChange={(e) => onChange(e.target.value === '' ? undefined : Number(e.target.value))}
      />
    );
  } else if (schema.type === 'array' && schema.items && resolve(schema.items).enum) {
    const options = resolve(schema.items).enum!;
    const list = Array.isArray(value) ? value : [];
    return (
      <fieldset className="field">
        <legend>{label}</legend>
        <Hint id={hintId} schema={schema} />
        <div className="choices">
          {options.map((option) => (
            <label key={String(option)} className="choice">
              <input
                type="checkbox"
                checked={list.includes(option)}
                onChange={(e) =>
                  onChange(e.target.checked ? [...list, option] : list.filter((item) => item !== option))
                }
              />
              {String(option)}
            </label>
          ))}
        </div>
        <Messages id={errorId} messages={messages} />
      </fieldset>
    );
  } else if (schema.type === 'array' || schema.type === 'object' || !schema.type) {
    control = <JsonInput id={id} value={value} onChange={onChange} describedBy={describedBy} invalid={invalid} />;
  } else {
    control = (
      <input
        id={id}
        type={schema.writeOnly ? 'password' : 'text'}
        autoComplete={schema.writeOnly ? 'new-password' : 'off'}
        placeholder={schema.example !== undefined ? String(schema.example) : undefined}
        value={typeof value === 'string' ? value : ''}
        aria-describedby={describedBy || undefined}
        aria-invalid={invalid}
        onChange={(e) => onChange(e.target.value === '' ? undefined : e.target.value)}
      />
    );
  }
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {control}
      <Hint id={hintId} schema={schema} />
      <Messages id={errorId} messages={messages} />
    </div>
  );
}

/** `oneOf`: the user picks the form of the value (a plain string, or one of the object schemas). */
function Variants({ schema, value, onChange, path, label, errors, depth = 0 }: Props) {
  const options = schema.oneOf!;
  const names = options.map((option, i) => {
    const s = resolve(option);
    if (refName(option)) return refName(option)!;
    if (s.enum) return `one of: ${s.enum.join(', ')}`;
    const about = s.description?.split(/[.,:;]/)[0];
    return `${s.type ?? `form ${i + 1}`}${about ? ` (${about})` : ''}`;
  });
  const guess = () => {
    if (value === undefined) return -1;
    const index = options.findIndex((option) => {
      const s = resolve(option);
      return typeof value === 'string'
        ? s.type === 'string'
        : Array.isArray(value)
          ? s.type === 'array'
          : !!s.properties;
    });
    return index;
  };
  const [chosen, setChosen] = useState(guess);
  const id = useId();
  return (
    <div className="field variants">
      <label htmlFor={id}>{label} (form)</label>
      <select
        id={id}
        value={chosen}
        onChange={(e) => {
          setChosen(Number(e.target.value));
          onChange(undefined);
        }}
      >
        <option value={-1}>(not set)</option>
        {names.map((name, i) => (
          <option key={i} value={i}>
            {name}
          </option>
        ))}
      </select>
      {schema.description ? <p className="hint">{schema.description}</p> : null}
      {chosen >= 0 ? (
        <SchemaForm
          schema={options[chosen]}
          value={value}
          onChange={onChange}
          path={path}
          label={`${label}: ${names[chosen]}`}
          errors={errors}
          depth={depth}
        />
      ) : null}
    </div>
  );
}

/** A member with no simple form: JSON, parsed as typed. */
function JsonInput(props: {
  id: string;
  value: unknown;
  onChange: (v: unknown) => void;
  describedBy: string;
  invalid?: boolean;
}) {
  const [text, setText] = useState(props.value === undefined ? '' : JSON.stringify(props.value));
  const [bad, setBad] = useState(false);
  return (
    <>
      <textarea
        id={props.id}
        rows={2}
        value={text}
        aria-describedby={props.describedBy || undefined}
        aria-invalid={props.invalid || bad || undefined}
        onChange={(e) => {
          setText(e.target.value);
          if (e.target.value.trim() === '') {
            setBad(false);
            props.onChange(undefined);
            return;
          }
          try {
            props.onChange(JSON.parse(e.target.value));
            setBad(false);
          } catch {
            setBad(true);
          }
        }}
      />
      {bad ? <p className="field-error">Not valid JSON yet: fix it and the value is taken.</p> : null}
    </>
  );
}
