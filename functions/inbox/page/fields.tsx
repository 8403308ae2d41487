import { type Field, type FormValues, MAX_RADIOS } from './forms.ts';
import { prettyJson } from './json.ts';
import type { JsonSchema } from './types.ts';

/**
 * A generated form's fields (see `forms.ts`): each control labelled (its `title`, else its property name), its
 * `description` as help text tied by `aria-describedby`, required ones marked in words, and its error beside it with
 * `aria-invalid`.
 */

interface FieldProps {
  field: Field;
  values: FormValues;
  errors: Record<string, string>;
  onChange(id: string, value: string | boolean): void;
  /** The ask's schema, shown beside a JSON editor. */
  schema?: JsonSchema | null | undefined;
}

/** The id list for `aria-describedby`: the help and the error, when there are. */
export function describedBy(id: string, help: boolean, error: string | undefined): string | undefined {
  const ids = [help ? `${id}-help` : '', error === undefined ? '' : `${id}-error`].filter((s) => s !== '');
  return ids.length === 0 ? undefined : ids.join(' ');
}

/** An error beside its control. */
export function ErrorText({ id, error }: { id: string; error: string | undefined }) {
  return error === undefined ? null : (
    <p class="error" id={`${id}-error`}>
      {error}
    </p>
  );
}

function Label({ field, suffix }: { field: Field; suffix?: string }) {
  return (
    <>
      {field.label}
      {suffix}
      {field.required && field.pointer !== '' ? <span class="required"> (required)</span> : null}
    </>
  );
}

function Help({ field }: { field: Field }) {
  return field.description === undefined ? null : (
    <p class="help" id={`${field.id}-help`}>
      {field.description}
    </p>
  );
}

function optionText(option: unknown): string {
  return typeof option === 'string' ? option : JSON.stringify(option);
}

/** One field, and the fields inside it. */
export function FieldView({ field, values, errors, onChange, schema }: FieldProps) {
  const error = errors[field.id];
  const invalid = error === undefined ? undefined : true;
  const described = describedBy(field.id, field.description !== undefined, error);
  const text = (values[field.id] as string | undefined) ?? '';
  const onText = (event: Event) => onChange(field.id, (event.currentTarget as HTMLInputElement).value);
  switch (field.kind) {
    case 'string':
    case 'number':
      return (
        <div class="field">
          <label for={field.id}>
            <Label field={field} />
          </label>
          <Help field={field} />
          {field.kind === 'string' && field.multiline ? (
            <textarea
              id={field.id}
              rows={3}
              value={text}
              onInput={onText}
              aria-invalid={invalid}
              aria-required={field.required}
              aria-describedby={described}
            />
          ) : (
            <input
              id={field.id}
              type="text"
              inputMode={field.kind === 'number' ? (field.integer ? 'numeric' : 'decimal') : undefined}
              autocomplete="off"
              value={text}
              onInput={onText}
              aria-invalid={invalid}
              aria-required={field.required}
              aria-describedby={described}
            />
          )}
          <ErrorText id={field.id} error={error} />
        </div>
      );
    case 'boolean':
      return (
        <div class="field check">
          <input
            id={field.id}
            type="checkbox"
            checked={values[field.id] === true}
            onChange={(event) => onChange(field.id, (event.currentTarget as HTMLInputElement).checked)}
            aria-invalid={invalid}
            aria-describedby={described}
          />
          <label for={field.id}>
            <Label field={field} />
          </label>
          <Help field={field} />
          <ErrorText id={field.id} error={error} />
        </div>
      );
    case 'enum':
      if (field.options.length > MAX_RADIOS) {
        return (
          <div class="field">
            <label for={field.id}>
              <Label field={field} />
            </label>
            <Help field={field} />
            <select
              id={field.id}
              value={text}
              onChange={onText}
              aria-invalid={invalid}
              aria-required={field.required}
              aria-describedby={described}
            >
              <option value="">Choose…</option>
              {field.options.map((option, index) => (
                <option key={optionText(option)} value={String(index)}>
                  {optionText(option)}
                </option>
              ))}
            </select>
            <ErrorText id={field.id} error={error} />
          </div>
        );
      }
      return (
        <fieldset class="field options" id={field.id} aria-describedby={described}>
          <legend>
            <Label field={field} />
          </legend>
          <Help field={field} />
          {field.options.map((option, index) => (
            <div class="check" key={optionText(option)}>
              <input
                type="radio"
                id={`${field.id}-o${index}`}
                name={field.id}
                value={String(index)}
                checked={text === String(index)}
                onChange={onText}
                aria-invalid={invalid}
              />
              <label for={`${field.id}-o${index}`}>{optionText(option)}</label>
            </div>
          ))}
          <ErrorText id={field.id} error={error} />
        </fieldset>
      );
    case 'object':
      return (
        <fieldset class="field group" id={field.id} aria-describedby={described}>
          <legend>
            <Label field={field} />
          </legend>
          <Help field={field} />
          <ErrorText id={field.id} error={error} />
          {field.properties.map((property) => (
            <FieldView key={property.id} field={property} values={values} errors={errors} onChange={onChange} />
          ))}
        </fieldset>
      );
    case 'json':
      return (
        <div class="field">
          <label for={field.id}>
            <Label field={field} suffix=" (JSON)" />
          </label>
          <Help field={field} />
          {schema !== undefined && schema !== null && field.pointer === '' ? (
            <details class="schema">
              <summary>The schema your answer must match</summary>
              <pre>{prettyJson(schema)}</pre>
            </details>
          ) : null}
          <textarea
            id={field.id}
            class="code"
            rows={6}
            spellcheck={false}
            value={text}
            onInput={onText}
            aria-invalid={invalid}
            aria-required={field.required}
            aria-describedby={described}
          />
          <ErrorText id={field.id} error={error} />
        </div>
      );
  }
}
