"""The maths of the lessons past the FFN itself, one module per topic: costs (Scale & cost's
parameters and FLOPs), mistakes (Traps' by-hand slips), training (Collapse's fits), memory
(Memory lab's facts), moe (Mixture of experts), superposition (Superposition's toy models)."""
