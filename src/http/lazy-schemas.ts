import AjvCompiler from '@fastify/ajv-compiler';
import SerializerSelector from '@fastify/fast-json-stringify-compiler';

/**
 * Fastify's own schema compilers (Ajv for inputs, fast-json-stringify for answers), deferred: a
 * route's validators and serializers are compiled when the route first needs them, not when the
 * server starts. A server has some 300 routes and most processes use a few of them (a serving
 * instance, a test file, a CLI command against its own server); compiling all of them took a
 * third of a start's CPU and kept every compiled function in memory. What a route compiles is
 * unchanged, so its answers are too; only its first request pays the compilation (a few
 * milliseconds). `eager` compiles at start as Fastify does, which a test uses to prove that every
 * route's schemas compile.
 */
export function schemaCompilers(eager: boolean): {
  buildValidator: ReturnType<typeof AjvCompiler>;
  buildSerializer: ReturnType<typeof SerializerSelector>;
} {
  const buildValidator = AjvCompiler();
  const buildSerializer = SerializerSelector();
  if (eager) return { buildValidator, buildSerializer };
  return {
    buildValidator: ((externalSchemas, options) =>
      deferred(buildValidator(externalSchemas, options), true)) as typeof buildValidator,
    buildSerializer: ((externalSchemas, options) =>
      deferred(buildSerializer(externalSchemas, options), false)) as typeof buildSerializer,
  };
}

type Compiled = ((...args: unknown[]) => unknown) & { errors?: unknown; schemaEnv?: unknown };

/**
 * A compile function whose results compile on their first call. A validator's `errors` (which
 * Fastify reads after a failed call) are copied onto the stand-in, and Fastify is told that it
 * takes Ajv's second argument (`schemaEnv`), which the stand-in passes on only to a function that
 * takes it.
 */
function deferred<Route>(compile: (route: Route) => unknown, validator: boolean): (route: Route) => Compiled {
  return (route) => {
    let compiled: Compiled | undefined;
    const standIn: Compiled = (...args: unknown[]) => {
      compiled ??= compile(route) as Compiled;
      if (!validator) return compiled(...args);
      const result = compiled.schemaEnv ? compiled(...args) : compiled(args[0]);
      standIn.errors = compiled.errors;
      return result;
    };
    if (validator) standIn.schemaEnv = true;
    return standIn;
  };
}
