// Call ids are `<name>[#<record>]@<content digest>`: tests compare the readable part.
export const bareId = (id: string): string => id.replace(/@[0-9a-f]{10}$/, "");
