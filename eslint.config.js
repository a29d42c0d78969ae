import js from "@eslint/js";
import reactHooks from "eslint-plugin-react-hooks";
import tseslint from "typescript-eslint";

// Every helper on its floor (decision 0078). The building blocks in app/lib/ (log, ids, phone…)
// sit below the domain; the web adapters in app/web/ (api, screen, tus, forms…) above it. The
// floors below the adapters — lib, db, storage, schemas, the domain — never import them, nor the
// routes, the components or the offline app. scripts/import-cycles.mjs checks every floor.
const parseWithZod = {
  name: "@conform-to/zod",
  importNames: ["parseWithZod"],
  message: "Use parseFormData (or formSchema) from ~/schemas/strict.",
};
const upOf = (floor) => ({
  regex: "^(~/|(\\.{1,2}/)+(app/)?)(web|routes|components|offline|sw|openapi)(/|$)",
  message: `${floor} sits below the web adapters, routes and screens (decision 0078): import app/lib, never app/web.`,
});

export default tseslint.config(
  {
    ignores: [
      "build/**",
      "node_modules/**",
      "test-results/**",
      "playwright-report/**",
      "data/**",
      "uploads/**",
      "bench/results/**",
      "clients/typescript/dist/**",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.{ts,tsx}"],
    plugins: { "react-hooks": reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    // The database layer is asynchronous (SQLite and PostgreSQL behind one API): a query or domain
    // call that is not awaited is a bug — its error is lost and its result arrives too late.
    files: ["app/**/*.{ts,tsx}", "server/**/*.ts", "scripts/**/*.ts", "tests/**/*.ts"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/await-thenable": "error",
    },
  },
  {
    // Booleans and lists of form posts are read in one place: app/schemas/strict.ts. Outside the
    // domain, its server side is reached through each context's index (what the context offers);
    // the browser-safe modules (errors, paging, client) are imported as they are.
    files: ["app/**/*.{ts,tsx}", "server/**/*.ts"],
    ignores: ["app/schemas/strict.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: [parseWithZod],
          patterns: [
            {
              regex: "(^~/|^(\\.{1,2}/)+(app/)?)domain/[a-z-]+/(?!index\\.server$)[a-z-]+\\.server$",
              message: "Import a domain context through its index: ~/domain/<context>/index.server.",
            },
          ],
        },
      ],
    },
  },
  {
    // The floors below the domain: lib, db, storage, schemas (decision 0078). This block replaces
    // the one above for them, so it repeats its rules.
    files: ["app/{lib,db,storage,schemas}/**/*.{ts,tsx}", "app/{budgets,site,config.server}.ts"],
    ignores: ["app/schemas/strict.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: [parseWithZod],
          patterns: [
            upOf("This module"),
            {
              regex: "(^~/|^(\\.{1,2}/)+(app/)?)domain(/|$)",
              message: "The domain builds on this floor, not the other way round (decision 0078).",
            },
          ],
        },
      ],
    },
  },
  {
    // The domain's boundaries (decision 0025). It knows neither HTTP nor Remix (routes and web
    // adapters adapt it), nor the database dialect (app/db/, decision 0010), nor the adapters' own modules.
    // This block replaces the one above for app/domain, so it repeats its rule.
    files: ["app/domain/**/*.{ts,tsx}"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: [parseWithZod],
          patterns: [
            {
              regex: "^@remix-run/",
              message:
                "The domain never sees a Request or a cookie: HTTP belongs to app/web (e.g. session-cookie.server.ts) and the routes.",
            },
            upOf("The domain"),
            {
              regex: "^drizzle-orm/[^/]+-core(/|$)",
              message:
                "Dialect code lives in app/db/ (decision 0010): alias from ~/db/alias, the rate-limit store from ~/db/ratelimit-store.server.",
            },
            {
              // Inside the domain too, another context is reached only through what it offers
              // (decision 0053); its browser-safe modules (errors, client, paging…) as they are.
              regex: "^(\\.\\./|~/domain/)[a-z-]+/(?!index\\.server$)[a-z-]+\\.server$",
              message: "Reach another context through its index: ../<context>/index.server.",
            },
          ],
        },
      ],
    },
  },
  {
    // Domain code never calls a driver's synchronous methods; they do not exist on PostgreSQL.
    files: ["app/domain/**/*.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector:
            "CallExpression[callee.object.type='CallExpression'][callee.property.name=/^(all|run|values)$/][arguments.length=0]",
          message: "Await the query instead (it must run on SQLite and PostgreSQL alike).",
        },
        {
          selector: "CallExpression[callee.property.name='get'][arguments.length=0]",
          message: "Use first(query) from ~/db/client.server instead of .get().",
        },
      ],
    },
  },
  {
    // Modules a newcomer can hold (decision 0053): at most 500 lines in the domain and 300 in a
    // route module. Generated files and the locale catalogues live elsewhere (app/db, app/i18n).
    files: ["app/domain/**/*.{ts,tsx}"],
    rules: { "max-lines": ["error", { max: 500 }] },
  },
  {
    files: ["app/routes/**/*.{ts,tsx}"],
    rules: { "max-lines": ["error", { max: 300 }] },
  },
  {
    files: ["**/*.{js,mjs}"],
    languageOptions: { globals: { process: "readonly", console: "readonly" } },
  },
);
