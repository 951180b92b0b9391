/**
 * A CloudFormation template as the infrastructure tests read it: checked against a schema of what they rely on
 * (every resource has a type; properties, outputs and rules are objects) rather than cast. What lies below a
 * resource's properties stays untyped JSON, which the assertions themselves check.
 */
import * as v from 'valibot';

// biome-ignore lint/suspicious/noExplicitAny: property values are CloudFormation's untyped JSON; the assertions check their shape.
export type Json = any;
/** Any JSON value, left for the assertions to check. */
export const JsonSchema = v.custom<Json>(() => true);
const jsonObject = v.record(v.string(), JsonSchema);

export const ResourceSchema = v.looseObject({
  Type: v.string(),
  Properties: v.optional(jsonObject),
  DependsOn: v.optional(v.union([v.string(), v.array(v.string())])),
  UpdatePolicy: v.optional(jsonObject),
  DeletionPolicy: v.optional(v.string()),
  UpdateReplacePolicy: v.optional(v.string()),
  Metadata: v.optional(jsonObject),
});
export type Resource = v.InferInput<typeof ResourceSchema>;

export const TemplateSchema = v.looseObject({
  Resources: v.record(v.string(), ResourceSchema),
  Outputs: v.optional(jsonObject),
  Parameters: v.optional(jsonObject),
  Rules: v.optional(jsonObject),
});
export type TemplateJson = v.InferInput<typeof TemplateSchema>;

/**
 * A template (the parsed JSON of a synthesized stack) with the shape above, or a failure naming what is off. The
 * object itself, not a copy: its keys keep their order for the snapshots.
 */
export function readTemplate(template: unknown): TemplateJson {
  v.assert(TemplateSchema, template);
  return template;
}

/** The template's resources of one type, with their logical ids. */
export function resourcesOfType(template: TemplateJson, type: string): [string, Resource][] {
  return Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);
}
