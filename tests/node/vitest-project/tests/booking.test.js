import { describe, expect, test } from 'vitest';
import { bookFlight, weather } from './agent.js';

describe('booking', () => {
  test('books a flight', async () => {
    await expect(await bookFlight('NYC')).toMatchToolSnapshot();
  });

  test('two checks in one test', async () => {
    await expect(await weather('Oslo')).toMatchToolSnapshot();
    await expect(await weather('Paris')).toMatchToolSnapshot();
  });
});
