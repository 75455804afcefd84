// Loopback servers that speak the OpenAI streaming protocols, for this project's tests and for users' own.
export {};
