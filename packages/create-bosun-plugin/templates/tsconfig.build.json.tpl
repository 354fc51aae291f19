{
  "extends": "./tsconfig.json",
  "exclude": ["src/**/*.test.ts"]
}
