module.exports = {
  globalSetup: 'toolscored/jest/global-setup',
  globalTeardown: 'toolscored/jest/global-teardown',
  setupFilesAfterEnv: ['toolscored/jest/setup'],
  testMatch: ['<rootDir>/tests/jest/**/*.test.js'],
};
