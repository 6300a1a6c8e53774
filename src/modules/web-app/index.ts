/**
 * No other module uses the web app's files and /api/platform: its only surface is its routes (routes.ts), which app.ts registers.
 */
export {};
