import { Kafka, logLevel } from 'kafkajs';
import { committedThrough, freshName, testInfra } from '../src';

it("waits until a group has committed through the topic's end as it was when called, and says what is behind", async () => {
  const infra = await testInfra();
  const kafka = new Kafka({ brokers: infra.kafkaBrokers, clientId: 'testing-int', logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  const producer = kafka.producer();
  await Promise.all([admin.connect(), producer.connect()]);
  const topic = freshName('t_committed');
  const groupId = freshName('g_committed');
  try {
    await admin.createTopics({ topics: [{ topic, numPartitions: 2 }], waitForLeaders: true });
    await admin.setOffsets({ groupId, topic, partitions: [0, 1].map((partition) => ({ partition, offset: '0' })) });
    await producer.send({
      topic,
      messages: [
        { partition: 1, value: 'a' },
        { partition: 1, value: 'b' },
      ],
    });

    // Partition 1 holds two events the group has not committed; partition 0 is empty, so it is through.
    await expect(committedThrough(admin, groupId, topic, 600)).rejects.toThrow(
      '[{"partition":1,"committed":"0","end":"2"}]',
    );

    await admin.setOffsets({ groupId, topic, partitions: [{ partition: 1, offset: '2' }] });
    await expect(committedThrough(admin, groupId, topic, 5_000)).resolves.toBeUndefined();
  } finally {
    await Promise.all([producer.disconnect(), admin.disconnect()]);
  }
});
