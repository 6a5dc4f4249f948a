export abstract class Clock {
  abstract now(): Date;
}
